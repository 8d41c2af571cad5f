// Runs the Khronos glTF validator (npm package gltf-validator) on each file
// given; prints its counts and every error and warning, and exits 1 when
// any file has an error, 2 when the validator cannot be loaded.
//   node gltf_validate.js NODE_MODULES FILE...
const path = require('path');
const fs = require('fs');
let validator;
try {
    validator = require(path.join(process.argv[2], 'gltf-validator'));
} catch (e) {
    console.error('gltf-validator not found under ' + process.argv[2]);
    process.exit(2);
}
(async () => {
    let failed = false;
    for (const file of process.argv.slice(3)) {
        const report = await validator.validateBytes(new Uint8Array(fs.readFileSync(file)), {
            uri: file,
            maxIssues: 50,
        });
        const i = report.issues;
        console.log(`${file}: ${i.numErrors} errors, ${i.numWarnings} warnings, ` +
                    `${i.numInfos} infos, ${i.numHints} hints`);
        for (const m of i.messages)
            if (m.severity <= 1) console.log(`  ${m.severity ? 'warning' : 'error'} ${m.code} ${m.pointer || ''}: ${m.message}`);
        if (i.numErrors > 0) failed = true;
    }
    process.exit(failed ? 1 : 0);
})();
