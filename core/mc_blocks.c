/* Minecraft block names to colours, for .litematic (core/litematic.c).
 * The colours are Minecraft's map colours (the Minecraft wiki's "Map item
 * format" base colours) of each block's material, so a build reads as it
 * does on an in-game map. A name (the namespace dropped) is looked up:
 *   1. air, cave_air, void_air and structure_void are empty;
 *   2. the exact names of the table below;
 *   3. leaves, saplings, grass and flowers by their suffix: plant green;
 *   4. one of the 16 dye colours first (wool, concrete, carpet, glass,
 *      terracotta, beds, candles, shulker boxes...): that dye's colour;
 *   5. one of the wood kinds first (planks, logs, stairs, doors...): that
 *      wood's colour;
 *   6. a shape suffix removed (_stairs, _slab, _wall, ...) and 2 again;
 *   7. a material word within the name (ore, deepslate, stone, brick,
 *      copper, glass, quartz, ice, sand, nether, prismarine...);
 *   8. else stone grey, and the block counts as unknown (vxr_mc_block_color's
 *      *known false). */
#include <string.h>
#include "internal.h"

#define RGB(r, g, b) ((uint32_t)(r) | (uint32_t)(g) << 8 | (uint32_t)(b) << 16 | 0xff000000u)

enum {
    GRASS = RGB(127, 178, 56),
    SAND = RGB(247, 233, 163),
    WOOL = RGB(199, 199, 199),
    FIRE = RGB(255, 0, 0),
    ICE = RGB(160, 160, 255),
    METAL = RGB(167, 167, 167),
    PLANT = RGB(0, 124, 0),
    SNOW = RGB(255, 255, 255),
    CLAY = RGB(164, 168, 184),
    DIRT = RGB(151, 109, 77),
    STONE = RGB(112, 112, 112),
    WATER = RGB(64, 64, 255),
    WOOD = RGB(143, 119, 72),
    QUARTZ = RGB(255, 252, 245),
    GOLD = RGB(250, 238, 77),
    DIAMOND = RGB(92, 219, 213),
    LAPIS = RGB(74, 128, 255),
    EMERALD = RGB(0, 217, 58),
    PODZOL = RGB(129, 86, 49),
    NETHER = RGB(112, 2, 0),
    DEEPSLATE = RGB(100, 100, 100),
    CRIMSON = RGB(148, 63, 97),
    WARPED = RGB(58, 142, 140),
    ORANGE = RGB(216, 127, 51),
    BROWN = RGB(102, 76, 51),
    RED = RGB(153, 51, 51),
    YELLOW = RGB(229, 229, 51),
    BLACK = RGB(25, 25, 25),
    TERRACOTTA = RGB(209, 177, 161),
};

typedef struct named {
    const char *name;
    uint32_t color;
} named;

static const named dyes[] = {
    {"white", RGB(255, 255, 255)},
    {"orange", ORANGE},
    {"magenta", RGB(178, 76, 216)},
    {"light_blue", RGB(102, 153, 216)},
    {"yellow", YELLOW},
    {"lime", RGB(127, 204, 25)},
    {"pink", RGB(242, 127, 165)},
    {"gray", RGB(76, 76, 76)},
    {"light_gray", RGB(153, 153, 153)},
    {"cyan", RGB(76, 127, 153)},
    {"purple", RGB(127, 63, 178)},
    {"blue", RGB(51, 76, 178)},
    {"brown", BROWN},
    {"green", RGB(102, 127, 51)},
    {"red", RED},
    {"black", BLACK},
};

static const named woods[] = {
    {"oak", WOOD},      {"spruce", PODZOL},   {"birch", SAND},    {"jungle", DIRT},
    {"acacia", ORANGE}, {"dark_oak", BROWN},  {"mangrove", RED},  {"cherry", TERRACOTTA},
    {"bamboo", YELLOW}, {"crimson", CRIMSON}, {"warped", WARPED}, {"pale_oak", QUARTZ},
};

static const named blocks[] = {
    {"grass_block", GRASS},
    {"dirt", DIRT},
    {"coarse_dirt", DIRT},
    {"rooted_dirt", DIRT},
    {"dirt_path", DIRT},
    {"farmland", DIRT},
    {"mud", DEEPSLATE},
    {"podzol", PODZOL},
    {"mycelium", RGB(127, 63, 178)},
    {"stone", STONE},
    {"cobblestone", STONE},
    {"mossy_cobblestone", STONE},
    {"smooth_stone", STONE},
    {"andesite", STONE},
    {"polished_andesite", STONE},
    {"granite", DIRT},
    {"polished_granite", DIRT},
    {"diorite", QUARTZ},
    {"polished_diorite", QUARTZ},
    {"gravel", STONE},
    {"bedrock", STONE},
    {"sand", SAND},
    {"sandstone", SAND},
    {"red_sand", ORANGE},
    {"clay", CLAY},
    {"terracotta", ORANGE},
    {"brick", RED},
    {"bricks", RED},
    {"bookshelf", WOOD},
    {"crafting_table", WOOD},
    {"chest", WOOD},
    {"barrel", WOOD},
    {"ladder", WOOD},
    {"lectern", WOOD},
    {"composter", WOOD},
    {"note_block", WOOD},
    {"jukebox", DIRT},
    {"scaffolding", SAND},
    {"hay_block", YELLOW},
    {"pumpkin", ORANGE},
    {"carved_pumpkin", ORANGE},
    {"jack_o_lantern", ORANGE},
    {"melon", RGB(127, 204, 25)},
    {"cactus", PLANT},
    {"wheat", PLANT},
    {"carrots", PLANT},
    {"potatoes", PLANT},
    {"beetroots", PLANT},
    {"cocoa", BROWN},
    {"nether_wart", RED},
    {"vine", PLANT},
    {"lily_pad", PLANT},
    {"moss_block", RGB(102, 127, 51)},
    {"moss_carpet", RGB(102, 127, 51)},
    {"water", WATER},
    {"bubble_column", WATER},
    {"lava", FIRE},
    {"fire", FIRE},
    {"tnt", FIRE},
    {"redstone_block", FIRE},
    {"ice", ICE},
    {"packed_ice", ICE},
    {"blue_ice", ICE},
    {"snow", SNOW},
    {"snow_block", SNOW},
    {"powder_snow", SNOW},
    {"iron_block", METAL},
    {"iron_bars", METAL},
    {"anvil", METAL},
    {"chain", METAL},
    {"lantern", METAL},
    {"cauldron", STONE},
    {"hopper", STONE},
    {"furnace", STONE},
    {"blast_furnace", STONE},
    {"smoker", STONE},
    {"dispenser", STONE},
    {"dropper", STONE},
    {"observer", STONE},
    {"piston", STONE},
    {"sticky_piston", STONE},
    {"stonecutter", STONE},
    {"grindstone", METAL},
    {"gold_block", GOLD},
    {"bell", GOLD},
    {"diamond_block", DIAMOND},
    {"lapis_block", LAPIS},
    {"emerald_block", EMERALD},
    {"coal_block", BLACK},
    {"obsidian", BLACK},
    {"crying_obsidian", BLACK},
    {"netherrack", NETHER},
    {"soul_sand", BROWN},
    {"soul_soil", BROWN},
    {"glowstone", SAND},
    {"sea_lantern", QUARTZ},
    {"shroomlight", RED},
    {"magma_block", NETHER},
    {"end_stone", SAND},
    {"purpur_block", RGB(178, 76, 216)},
    {"quartz_block", QUARTZ},
    {"bone_block", SAND},
    {"sponge", YELLOW},
    {"wet_sponge", YELLOW},
    {"cobweb", WOOL},
    {"white_wool", SNOW},
    {"torch", FIRE},
    {"wall_torch", FIRE},
    {"soul_torch", WARPED},
    {"redstone_torch", FIRE},
    {"redstone_wire", FIRE},
    {"rail", METAL},
    {"powered_rail", GOLD},
    {"detector_rail", METAL},
    {"activator_rail", METAL},
    {"lever", STONE},
    {"tripwire_hook", WOOD},
    {"flower_pot", ORANGE},
    {"brewing_stand", METAL},
    {"enchanting_table", RED},
    {"beacon", DIAMOND},
    {"end_rod", QUARTZ},
    {"sugar_cane", PLANT},
    {"bamboo", PLANT},
    {"kelp", WATER},
    {"seagrass", WATER},
    {"dried_kelp_block", RGB(102, 127, 51)},
    {"honey_block", ORANGE},
    {"slime_block", GRASS},
    {"target", QUARTZ},
    {"loom", WOOD},
    {"cartography_table", WOOD},
    {"fletching_table", WOOD},
    {"smithing_table", WOOD},
    {"campfire", PODZOL},
    {"calcite", QUARTZ},
    {"tuff", DEEPSLATE},
    {"dripstone_block", BROWN},
    {"amethyst_block", RGB(127, 63, 178)},
    {"prismarine", DIAMOND},
    {"dark_prismarine", DIAMOND},
    {"sculk", BLACK},
    {"blackstone", BLACK},
    {"basalt", BLACK},
    {"smooth_basalt", BLACK},
    {"glass", SNOW},
    {"tinted_glass", BLACK},
    {"mushroom_stem", WOOL},
    {"brown_mushroom_block", DIRT},
    {"red_mushroom_block", RED},
    {"nether_wart_block", RED},
    {"warped_wart_block", WARPED},
};

static const char *const air[] = {"air", "cave_air", "void_air", "structure_void"};

static const char *const plant_suffixes[] = {
    "_leaves",   "_sapling", "grass",  "fern",      "_flower", "dandelion",          "poppy",
    "orchid",    "allium",   "_tulip", "daisy",     "bluet",   "lily_of_the_valley", "cornflower",
    "rose_bush", "peony",    "lilac",  "sunflower", "_roots",  "dead_bush",          "_vines",
    "_bush"};

static const char *const shape_suffixes[] = {"_stairs",
                                             "_slab",
                                             "_wall",
                                             "_fence_gate",
                                             "_fence",
                                             "_door",
                                             "_trapdoor",
                                             "_button",
                                             "_pressure_plate",
                                             "_wall_hanging_sign",
                                             "_hanging_sign",
                                             "_wall_sign",
                                             "_sign",
                                             "_pane",
                                             "_carpet",
                                             "_wall_banner",
                                             "_banner",
                                             "_bed",
                                             "_candle",
                                             "_shulker_box",
                                             "_glazed_terracotta",
                                             "_stained_glass",
                                             "_concrete_powder",
                                             "_concrete",
                                             "_wool",
                                             "_terracotta",
                                             "_log",
                                             "_wood",
                                             "_planks",
                                             "_stem",
                                             "_hyphae",
                                             "_pillar",
                                             "_tiles",
                                             "_bricks"};

static const named words[] = {
    {"deepslate", DEEPSLATE}, {"_ore", STONE},
    {"stone", STONE},         {"brick", RED},
    {"copper", ORANGE},       {"glass", SNOW},
    {"quartz", QUARTZ},       {"ice", ICE},
    {"sand", SAND},           {"nether", NETHER},
    {"prismarine", DIAMOND},  {"purpur", RGB(178, 76, 216)},
    {"blackstone", BLACK},    {"coral", RGB(242, 127, 165)},
    {"mushroom", RED},        {"froglight", SAND},
    {"candle", SAND},         {"head", DIRT},
    {"skull", QUARTZ},
};

static bool same(const uint8_t *s, size_t n, const char *word) {
    return strlen(word) == n && !memcmp(s, word, n);
}

static bool starts(const uint8_t *s, size_t n, const char *word) {
    const size_t w = strlen(word);
    return n > w && s[w] == '_' && !memcmp(s, word, w);
}

static bool ends(const uint8_t *s, size_t n, const char *word) {
    const size_t w = strlen(word);
    return n >= w && !memcmp(s + n - w, word, w);
}

static bool contains(const uint8_t *s, size_t n, const char *word) {
    const size_t w = strlen(word);
    for (size_t i = 0; i + w <= n; i++)
        if (!memcmp(s + i, word, w)) return true;
    return false;
}

static bool exact(const uint8_t *s, size_t n, uint32_t *color) {
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++)
        if (same(s, n, blocks[i].name)) {
            *color = blocks[i].color;
            return true;
        }
    return false;
}

uint32_t vxr_mc_block_color(const uint8_t *name, size_t n, bool *known) {
    *known = true;
    for (size_t i = 0; i < n; i++) /* the namespace */
        if (name[i] == ':') {
            name += i + 1;
            n -= i + 1;
            break;
        }
    for (size_t i = 0; i < sizeof air / sizeof air[0]; i++)
        if (same(name, n, air[i])) return 0;
    uint32_t c;
    if (exact(name, n, &c)) return c;
    for (size_t i = 0; i < sizeof plant_suffixes / sizeof plant_suffixes[0]; i++)
        if (ends(name, n, plant_suffixes[i])) return PLANT;
    /* light_blue and light_gray before any shorter dye */
    for (size_t i = 0; i < sizeof dyes / sizeof dyes[0]; i++)
        if (starts(name, n, dyes[i].name) && !starts(name, n, "light")) return dyes[i].color;
    if (starts(name, n, "light_blue")) return dyes[3].color;
    if (starts(name, n, "light_gray")) return dyes[8].color;
    /* dark_oak and pale_oak before oak */
    for (size_t i = sizeof woods / sizeof woods[0]; i-- > 0;)
        if (starts(name, n, woods[i].name)) return woods[i].color;
    for (size_t i = 0; i < sizeof shape_suffixes / sizeof shape_suffixes[0]; i++)
        if (ends(name, n, shape_suffixes[i])) {
            const size_t base = n - strlen(shape_suffixes[i]);
            if (exact(name, base, &c)) return c;
        }
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (contains(name, n, words[i].name)) return words[i].color;
    *known = false;
    return STONE;
}
