/* MCEdit and Schematica's .schematic (the Minecraft wiki's "Schematic file
 * format"): gzip-compressed NBT, a "Schematic" compound of Width, Height
 * and Length (shorts), "Blocks" (a byte array of block ids, cell
 * (y * Length + z) * Width + x), "Data" (the ids' 4-bit data values) and
 * optionally "AddBlocks" (ids' bits 8..11, two cells a byte, the even cell
 * in the high nibble). The ids are Minecraft's numeric ones from before
 * 1.13: they are named here (the wiki's "Java Edition data values/Pre-
 * flattening" lists them), dyed and wooden blocks by their data value, and
 * the names take colours through core/mc_blocks.c as a .litematic's do.
 * Y-up as Minecraft: a cell (x, y, z) is vxr's (x, -z-1, y). One model and
 * one instance. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "internal.h"

static const char *const dyes[16] = {
    "white",      "orange", "magenta", "light_blue", "yellow", "lime",  "pink", "gray",
    "light_gray", "cyan",   "purple",  "blue",       "brown",  "green", "red",  "black"};
static const char *const woods[6] = {"oak", "spruce", "birch", "jungle", "acacia", "dark_oak"};

/* Ids whose name does not depend on their data value. */
static const char *const names[256] = {
    [0] = "air",
    [2] = "grass_block",
    [3] = "dirt",
    [4] = "cobblestone",
    [6] = "oak_sapling",
    [7] = "bedrock",
    [8] = "water",
    [9] = "water",
    [10] = "lava",
    [11] = "lava",
    [13] = "gravel",
    [14] = "gold_ore",
    [15] = "iron_ore",
    [16] = "coal_ore",
    [18] = "oak_leaves",
    [19] = "sponge",
    [20] = "glass",
    [21] = "lapis_ore",
    [22] = "lapis_block",
    [23] = "dispenser",
    [24] = "sandstone",
    [25] = "note_block",
    [26] = "red_bed",
    [27] = "powered_rail",
    [28] = "detector_rail",
    [29] = "sticky_piston",
    [30] = "cobweb",
    [31] = "short_grass",
    [32] = "dead_bush",
    [33] = "piston",
    [34] = "piston",
    [37] = "dandelion",
    [38] = "poppy",
    [39] = "brown_mushroom",
    [40] = "red_mushroom",
    [41] = "gold_block",
    [42] = "iron_block",
    [43] = "smooth_stone",
    [44] = "stone_slab",
    [45] = "bricks",
    [46] = "tnt",
    [47] = "bookshelf",
    [48] = "mossy_cobblestone",
    [49] = "obsidian",
    [50] = "torch",
    [51] = "fire",
    [52] = "iron_bars",
    [53] = "oak_stairs",
    [54] = "chest",
    [55] = "redstone_wire",
    [56] = "diamond_ore",
    [57] = "diamond_block",
    [58] = "crafting_table",
    [59] = "wheat",
    [60] = "farmland",
    [61] = "furnace",
    [62] = "furnace",
    [63] = "oak_sign",
    [64] = "oak_door",
    [65] = "ladder",
    [66] = "rail",
    [67] = "cobblestone_stairs",
    [68] = "oak_wall_sign",
    [69] = "lever",
    [70] = "stone_pressure_plate",
    [71] = "iron_door",
    [72] = "oak_pressure_plate",
    [73] = "redstone_ore",
    [74] = "redstone_ore",
    [75] = "redstone_torch",
    [76] = "redstone_torch",
    [77] = "stone_button",
    [78] = "snow",
    [79] = "ice",
    [80] = "snow_block",
    [81] = "cactus",
    [82] = "clay",
    [83] = "sugar_cane",
    [84] = "jukebox",
    [85] = "oak_fence",
    [86] = "pumpkin",
    [87] = "netherrack",
    [88] = "soul_sand",
    [89] = "glowstone",
    [90] = "nether_portal",
    [91] = "jack_o_lantern",
    [92] = "cake",
    [93] = "repeater",
    [94] = "repeater",
    [96] = "oak_trapdoor",
    [97] = "infested_stone",
    [98] = "stone_bricks",
    [99] = "brown_mushroom_block",
    [100] = "red_mushroom_block",
    [101] = "iron_bars",
    [102] = "glass_pane",
    [103] = "melon",
    [104] = "pumpkin_stem",
    [105] = "melon_stem",
    [106] = "vine",
    [107] = "oak_fence_gate",
    [108] = "brick_stairs",
    [109] = "stone_brick_stairs",
    [110] = "mycelium",
    [111] = "lily_pad",
    [112] = "nether_bricks",
    [113] = "nether_brick_fence",
    [114] = "nether_brick_stairs",
    [115] = "nether_wart",
    [116] = "enchanting_table",
    [117] = "brewing_stand",
    [118] = "cauldron",
    [119] = "end_portal",
    [120] = "end_portal_frame",
    [121] = "end_stone",
    [122] = "dragon_egg",
    [123] = "redstone_lamp",
    [124] = "redstone_lamp",
    [125] = "oak_planks",
    [126] = "oak_slab",
    [127] = "cocoa",
    [128] = "sandstone_stairs",
    [129] = "emerald_ore",
    [130] = "ender_chest",
    [131] = "tripwire_hook",
    [132] = "tripwire",
    [133] = "emerald_block",
    [134] = "spruce_stairs",
    [135] = "birch_stairs",
    [136] = "jungle_stairs",
    [137] = "command_block",
    [138] = "beacon",
    [139] = "cobblestone_wall",
    [140] = "flower_pot",
    [141] = "carrots",
    [142] = "potatoes",
    [143] = "oak_button",
    [144] = "skeleton_skull",
    [145] = "anvil",
    [146] = "chest",
    [147] = "light_weighted_pressure_plate",
    [148] = "heavy_weighted_pressure_plate",
    [149] = "comparator",
    [150] = "comparator",
    [151] = "daylight_detector",
    [152] = "redstone_block",
    [153] = "nether_quartz_ore",
    [154] = "hopper",
    [155] = "quartz_block",
    [156] = "quartz_stairs",
    [157] = "activator_rail",
    [158] = "dropper",
    [161] = "acacia_leaves",
    [163] = "acacia_stairs",
    [164] = "dark_oak_stairs",
    [165] = "slime_block",
    [166] = "structure_void",
    [167] = "iron_trapdoor",
    [168] = "prismarine",
    [169] = "sea_lantern",
    [170] = "hay_block",
    [172] = "terracotta",
    [173] = "coal_block",
    [174] = "packed_ice",
    [175] = "sunflower",
    [176] = "white_banner",
    [177] = "white_wall_banner",
    [178] = "daylight_detector",
    [179] = "red_sandstone",
    [180] = "red_sandstone_stairs",
    [181] = "red_sandstone",
    [182] = "red_sandstone_slab",
    [183] = "spruce_fence_gate",
    [184] = "birch_fence_gate",
    [185] = "jungle_fence_gate",
    [186] = "dark_oak_fence_gate",
    [187] = "acacia_fence_gate",
    [188] = "spruce_fence",
    [189] = "birch_fence",
    [190] = "jungle_fence",
    [191] = "dark_oak_fence",
    [192] = "acacia_fence",
    [193] = "spruce_door",
    [194] = "birch_door",
    [195] = "jungle_door",
    [196] = "acacia_door",
    [197] = "dark_oak_door",
    [198] = "end_rod",
    [199] = "chorus_plant",
    [200] = "chorus_flower",
    [201] = "purpur_block",
    [202] = "purpur_pillar",
    [203] = "purpur_stairs",
    [204] = "purpur_slab",
    [205] = "purpur_slab",
    [206] = "end_stone_bricks",
    [207] = "beetroots",
    [208] = "dirt_path",
    [209] = "end_gateway",
    [210] = "command_block",
    [211] = "command_block",
    [212] = "ice",
    [213] = "magma_block",
    [214] = "nether_wart_block",
    [215] = "red_nether_bricks",
    [216] = "bone_block",
    [217] = "structure_void",
    [218] = "observer",
    [255] = "structure_block",
};

/* The modern name of legacy block id with data value data. */
static void block_name(uint32_t id, uint32_t data, char *out, size_t size) {
    const uint32_t d = data & 15;
    static const char *const stone[7] = {
        "stone",    "granite",          "polished_granite", "diorite", "polished_diorite",
        "andesite", "polished_andesite"};
    if (id == 1)
        snprintf(out, size, "%s", stone[d < 7 ? d : 0]);
    else if (id == 12)
        snprintf(out, size, "%s", d == 1 ? "red_sand" : "sand");
    else if (id == 5)
        snprintf(out, size, "%s_planks", woods[d < 6 ? d : 0]);
    else if (id == 17)
        snprintf(out, size, "%s_log", woods[d & 3]);
    else if (id == 162)
        snprintf(out, size, "%s_log", woods[4 + (d & 1)]);
    else if (id == 35)
        snprintf(out, size, "%s_wool", dyes[d]);
    else if (id == 95)
        snprintf(out, size, "%s_stained_glass", dyes[d]);
    else if (id == 159)
        snprintf(out, size, "%s_terracotta", dyes[d]);
    else if (id == 160)
        snprintf(out, size, "%s_stained_glass_pane", dyes[d]);
    else if (id == 171)
        snprintf(out, size, "%s_carpet", dyes[d]);
    else if (id == 251)
        snprintf(out, size, "%s_concrete", dyes[d]);
    else if (id == 252)
        snprintf(out, size, "%s_concrete_powder", dyes[d]);
    else if (id >= 219 && id <= 234)
        snprintf(out, size, "%s_shulker_box", dyes[id - 219]);
    else if (id >= 235 && id <= 250)
        snprintf(out, size, "%s_glazed_terracotta", dyes[id - 235]);
    else if (id < 256 && names[id])
        snprintf(out, size, "%s", names[id]);
    else
        snprintf(out, size, "unknown_%u", id);
}

static bool short_of(const vxr_nbt *c, const char *name, int32_t *v) {
    vxr_nbt s;
    if (!vxr_nbt_get(c, name, 2, &s)) return false;
    *v = (int16_t)(uint16_t)(s.data[s.at] << 8 | s.data[s.at + 1]);
    return true;
}

vxr_result vxr_load_schematic_nbt(const uint8_t *nbt, size_t n, vxr_scene_src *dest,
                                  vxr_error *err) {
    vxr_scene_src_init(dest, 1);
    vxr_nbt root, blocks, data, add;
    int32_t w, h, l;
    if (!vxr_nbt_root(nbt, n, &root) || !short_of(&root, "Width", &w) ||
        !short_of(&root, "Height", &h) || !short_of(&root, "Length", &l) ||
        !vxr_nbt_get(&root, "Blocks", 7, &blocks))
        return vxr_fail(err, VXR_ERROR_FORMAT,
                        "not a schematic (no NBT compound with Width, Height, Length and Blocks)");
    const bool has_data = vxr_nbt_get(&root, "Data", 7, &data),
               has_add = vxr_nbt_get(&root, "AddBlocks", 7, &add);
    if (w <= 0 || h <= 0 || l <= 0)
        return vxr_fail(err, VXR_ERROR_FORMAT, "a %d x %d x %d schematic", w, h, l);
    const uint64_t cells = (uint64_t)w * (uint64_t)h * (uint64_t)l;
    if (cells > VXR_RLE_VOXEL_LIMIT)
        return vxr_fail(err, VXR_ERROR_LIMIT, "%d x %d x %d cells, over the limit of %llu", w, h, l,
                        (unsigned long long)VXR_RLE_VOXEL_LIMIT);
    if (vxr_nbt_count(&blocks) != cells || (has_data && vxr_nbt_count(&data) != cells) ||
        (has_add && vxr_nbt_count(&add) != (cells + 1) / 2))
        return vxr_fail(err, VXR_ERROR_FORMAT,
                        "%d x %d x %d cells, but %u Blocks, %u Data and %u AddBlocks bytes", w, h,
                        l, vxr_nbt_count(&blocks), has_data ? vxr_nbt_count(&data) : 0,
                        has_add ? vxr_nbt_count(&add) : 0);
    /* the colour of each (id, data), resolved once */
    uint32_t *color = malloc(4096 * 16 * sizeof *color);
    vxr_color_map *map = calloc(1, sizeof *map);
    uint32_t model;
    if (!color || !map || vxr_scene_src_add_model(dest, &model) != VXR_OK) {
        VXR_FREE(color, map);
        vxr_scene_src_free(dest);
        return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    }
    for (size_t i = 0; i < 4096 * 16; i++) color[i] = UINT32_MAX;
    const uint8_t *ids = blocks.data + blocks.at + 4,
                  *dv = has_data ? data.data + data.at + 4 : NULL,
                  *hi = has_add ? add.data + add.at + 4 : NULL;
    vxr_result r = VXR_OK;
    for (uint64_t i = 0; r == VXR_OK && i < cells; i++) {
        uint32_t id = ids[i];
        if (hi) id |= (uint32_t)(i & 1 ? hi[i / 2] & 15 : hi[i / 2] >> 4) << 8;
        const uint32_t key = id << 4 | (dv ? dv[i] & 15u : 0);
        if (color[key] == UINT32_MAX) {
            char name[64];
            bool known;
            block_name(id, key & 15, name, sizeof name);
            color[key] = vxr_mc_block_color((const uint8_t *)name, strlen(name), &known);
        }
        if (!color[key]) continue;
        const uint64_t x = i % (uint64_t)w, z = i / (uint64_t)w % (uint64_t)l,
                       y = i / ((uint64_t)w * (uint64_t)l);
        r = vxr_model_src_push(&dest->models[model], (int32_t)x, (int32_t)(l - 1 - (int64_t)z),
                               (int32_t)y, vxr_color_attr(map, dest, color[key]));
    }
    vxr_instance in = {model, 0, vxr_transform_identity(), INFINITY};
    in.transform.translation[1] = (float)-l;
    if (r == VXR_OK) r = vxr_scene_src_add_instance(dest, &in);
    if (r == VXR_OK) dest->attr_size = map->rgba ? 4 : 1;
    VXR_FREE(color, map);
    if (r != VXR_OK) {
        vxr_scene_src_free(dest);
        return vxr_fail(err, r, "out of memory");
    }
    return VXR_OK;
}

vxr_result vxr_load_schematic(const uint8_t *data, size_t size, vxr_scene_src *dest,
                              vxr_error *err) {
    return vxr_load_gzip_nbt(data, size, dest, err, "a schematic", vxr_load_schematic_nbt);
}
