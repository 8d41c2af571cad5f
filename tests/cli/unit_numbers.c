/* The command line's strict number readers and its message helpers
 * (tools/cli/cli.h, issue 26 items 13 and 14): what each accepts and
 * refuses, trimmed numbers that read back, clamped and escaped tokens. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

static int failures;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static void check_uint(const char *s, uint64_t lo, uint64_t hi, cli_number want, uint64_t value) {
    uint64_t v = 12345;
    cli_number got = cli_parse_uint(s, lo, hi, &v);
    if (got != want || (want == CLI_NUMBER_OK && v != value) ||
        (want != CLI_NUMBER_OK && v != 12345)) {
        fprintf(stderr, "cli_parse_uint('%s', %llu, %llu): %d, %llu; expected %d, %llu\n", s,
                (unsigned long long)lo, (unsigned long long)hi, (int)got, (unsigned long long)v,
                (int)want, (unsigned long long)value);
        failures++;
    }
}

static void check_int(const char *s, int64_t lo, int64_t hi, cli_number want, int64_t value) {
    int64_t v = 12345;
    cli_number got = cli_parse_int(s, lo, hi, &v);
    if (got != want || (want == CLI_NUMBER_OK && v != value) ||
        (want != CLI_NUMBER_OK && v != 12345)) {
        fprintf(stderr, "cli_parse_int('%s'): %d, %lld; expected %d, %lld\n", s, (int)got,
                (long long)v, (int)want, (long long)value);
        failures++;
    }
}

static void check_double(const char *s, cli_number want, double value) {
    double v = 12345;
    cli_number got = cli_parse_double(s, &v);
    if (got != want || (want == CLI_NUMBER_OK && v != value) ||
        (want != CLI_NUMBER_OK && v != 12345)) {
        fprintf(stderr, "cli_parse_double('%s'): %d, %.17g; expected %d, %.17g\n", s, (int)got, v,
                (int)want, value);
        failures++;
    }
}

static void check_float(const char *s, cli_number want, float value) {
    float v = 12345;
    cli_number got = cli_parse_float(s, &v);
    if (got != want || (want == CLI_NUMBER_OK && v != value) ||
        (want != CLI_NUMBER_OK && v != 12345)) {
        fprintf(stderr, "cli_parse_float('%s'): %d, %.9g; expected %d, %.9g\n", s, (int)got,
                (double)v, (int)want, (double)value);
        failures++;
    }
}

static void check_text(const char *what, const char *got, const char *want) {
    if (strcmp(got, want)) {
        fprintf(stderr, "%s: '%s', expected '%s'\n", what, got, want);
        failures++;
    }
}

int main(void) {
    const cli_number OK = CLI_NUMBER_OK, SYNTAX = CLI_NUMBER_SYNTAX, RANGE = CLI_NUMBER_RANGE;
    /* whole unsigned numbers: digits, all of them, within the range */
    check_uint("0", 0, 10, OK, 0);
    check_uint("7", 1, 10, OK, 7);
    check_uint("007", 1, 10, OK, 7);
    check_uint("1000000", 1, 1000000, OK, 1000000);
    check_uint("18446744073709551615", 0, UINT64_MAX, OK, UINT64_MAX);
    check_uint("18446744073709551616", 0, UINT64_MAX, RANGE, 0);
    check_uint("99999999999999999999999999", 0, UINT64_MAX, RANGE, 0);
    check_uint("0", 1, 10, RANGE, 0);
    check_uint("11", 1, 10, RANGE, 0);
    check_uint("-18446744073709551615", 1, 1000000, SYNTAX, 0);
    check_uint("-0", 0, 10, SYNTAX, 0);
    check_uint("+5", 1, 10, SYNTAX, 0);
    check_uint(" 5", 1, 10, SYNTAX, 0);
    check_uint("5 ", 1, 10, SYNTAX, 0);
    check_uint("0x10", 0, 100, SYNTAX, 0);
    check_uint("1e3", 0, 10000, SYNTAX, 0);
    check_uint("5.0", 0, 10, SYNTAX, 0);
    check_uint("", 0, 10, SYNTAX, 0);
    check_uint("16junk", 0, 100, SYNTAX, 0);
    /* signed: an optional sign */
    check_int("-3", -10, 10, OK, -3);
    check_int("+3", -10, 10, OK, 3);
    check_int("-0", -10, 10, OK, 0);
    check_int("-9223372036854775808", INT64_MIN, INT64_MAX, OK, INT64_MIN);
    check_int("9223372036854775807", INT64_MIN, INT64_MAX, OK, INT64_MAX);
    check_int("9223372036854775808", INT64_MIN, INT64_MAX, RANGE, 0);
    check_int("-9223372036854775809", INT64_MIN, INT64_MAX, RANGE, 0);
    check_int("-11", -10, 10, RANGE, 0);
    check_int("--1", -10, 10, SYNTAX, 0);
    check_int("-", -10, 10, SYNTAX, 0);
    check_int(" -1", -10, 10, SYNTAX, 0);
    check_int("0x1", -10, 10, SYNTAX, 0);
    /* reals: decimal, finite */
    check_double("1", OK, 1);
    check_double("-2.5", OK, -2.5);
    check_double("+2.5", OK, 2.5);
    check_double(".5", OK, 0.5);
    check_double("5.", OK, 5);
    check_double("1e300", OK, 1e300);
    check_double("1E-3", OK, 1e-3);
    check_double("63.99999", OK, 63.99999);
    check_double("1e999", RANGE, 0);
    check_double("-1e999", RANGE, 0);
    check_double("0x10", SYNTAX, 0);
    check_double("0x1p3", SYNTAX, 0);
    check_double("inf", SYNTAX, 0);
    check_double("-infinity", SYNTAX, 0);
    check_double("nan", SYNTAX, 0);
    check_double("", SYNTAX, 0);
    check_double(".", SYNTAX, 0);
    check_double("-", SYNTAX, 0);
    check_double("1e", SYNTAX, 0);
    check_double("1e+", SYNTAX, 0);
    check_double(" 1", SYNTAX, 0);
    check_double("1 ", SYNTAX, 0);
    check_double("1,5", SYNTAX, 0);
    check_double("1-2", SYNTAX, 0);
    check_float("0.1", OK, 0.1f);
    check_float("-7.25", OK, -7.25f);
    check_float("3.4028235e38", OK, 3.4028235e38f);
    check_float("1e39", RANGE, 0);
    check_float("1e300", RANGE, 0);
    check_float("0x1p-2", SYNTAX, 0);

    /* fields of a longer text: exactly the n bytes, whatever follows */
    uint64_t u = 0;
    CHECK(cli_parse_uint_n("12345", 2, 0, 100, &u) == CLI_NUMBER_OK && u == 12);
    CHECK(cli_parse_uint_n("12x5", 3, 0, 100, &u) == CLI_NUMBER_SYNTAX);
    CHECK(cli_parse_uint_n("12", 0, 0, 100, &u) == CLI_NUMBER_SYNTAX);
    double d = 0;
    CHECK(cli_parse_double_n("0x1p3", 1, &d) == CLI_NUMBER_OK && d == 0);
    CHECK(cli_parse_double_n("1e5,2", 3, &d) == CLI_NUMBER_OK && d == 1e5);
    CHECK(cli_parse_double_n("1.5e", 4, &d) == CLI_NUMBER_SYNTAX);
    float f = 0;
    CHECK(cli_parse_float_n("2.5e1x", 5, &f) == CLI_NUMBER_OK && f == 25);
    char tiny[200] = "0.";
    memset(tiny + 2, '0', 150);
    strcpy(tiny + 152, "125;");
    CHECK(cli_parse_double_n(tiny, 155, &d) == CLI_NUMBER_OK && d == 1.25e-151);
    CHECK(cli_parse_double(tiny, &d) == CLI_NUMBER_SYNTAX);

    /* trimmed numbers: the shortest form that reads back */
    check_text("1e300", CLI_DOUBLE(1e300), "1e+300");
    check_text("63.99999", CLI_DOUBLE(63.99999), "63.99999");
    check_text("0", CLI_DOUBLE(0.0), "0");
    check_text("-2.5", CLI_DOUBLE(-2.5), "-2.5");
    check_text("0.1", CLI_DOUBLE(0.1), "0.1");
    check_text("1/3", CLI_DOUBLE(1.0 / 3.0), "0.3333333333333333");
    check_text("0.1f", CLI_FLOAT(0.1f), "0.1");
    check_text("1/3f", CLI_FLOAT(1.0f / 3.0f), "0.33333334");
    check_text("inf", CLI_DOUBLE(INFINITY), "inf");
    check_text("-inf", CLI_DOUBLE(-INFINITY), "-inf");
    check_text("nan", CLI_DOUBLE(NAN), "nan");
    const double samples[] = {1e-310, 5e-324, 1.7976931348623157e308, 123456789.123, -0.0, 2.0 / 3};
    for (size_t i = 0; i < sizeof samples / sizeof *samples; i++) {
        const char *t = CLI_DOUBLE(samples[i]);
        CHECK(strtod(t, NULL) == samples[i] && strlen(t) < CLI_NUMBER_CHARS);
    }
    const float fsamples[] = {1e-45f, 3.4028235e38f, 16777217.0f, 0.3f, 1.17549435e-38f};
    for (size_t i = 0; i < sizeof fsamples / sizeof *fsamples; i++) {
        const char *t = CLI_FLOAT(fsamples[i]);
        CHECK(strtof(t, NULL) == fsamples[i] && strlen(t) <= 15);
    }
    /* every trimmed number of the parser's own reals reads back (a round
     * trip through both) */
    for (unsigned k = 0; k < 2000; k++) {
        double v = ldexp((double)(k * 2654435761u % 1000003u) / 1000003.0, (int)(k % 200) - 100);
        double back;
        CHECK(cli_parse_double(CLI_DOUBLE(v), &back) == CLI_NUMBER_OK && back == v);
    }

    /* shown tokens: short, printable */
    check_text("plain", CLI_SHOWN("plce"), "plce");
    check_text("escaped",
               CLI_SHOWN("pl\x01"
                         "ce\x7f\xc3\xa9"),
               "pl\\x01ce\\x7F\\xC3\\xA9");
    char longer[300];
    memset(longer, 'x', sizeof longer - 1);
    longer[sizeof longer - 1] = 0;
    char want[CLI_SHOWN_MAX + 4];
    memset(want, 'x', CLI_SHOWN_MAX);
    strcpy(want + CLI_SHOWN_MAX, "...");
    check_text("long", CLI_SHOWN(longer), want);
    longer[CLI_SHOWN_MAX] = 0;
    check_text("exactly the most", CLI_SHOWN(longer), longer);
    char bytes[100];
    memset(bytes, 0xff, sizeof bytes - 1);
    bytes[sizeof bytes - 1] = 0;
    const char *b = CLI_SHOWN(bytes);
    CHECK(strlen(b) <= CLI_SHOWN_MAX + 3 && !strncmp(b, "\\xFF\\xFF", 8) &&
          !strcmp(b + strlen(b) - 3, "..."));
    check_text("empty", CLI_SHOWN(""), "");

    /* the option arguments built on them */
    float v3[3];
    CHECK(cli_parse_vec3("1,-2.5,3e2", v3) && v3[0] == 1 && v3[1] == -2.5f && v3[2] == 300);
    CHECK(!cli_parse_vec3("0x1p6,1,1", v3));
    CHECK(!cli_parse_vec3(" 1,2,3", v3));
    CHECK(!cli_parse_vec3("1, 2,3", v3));
    CHECK(!cli_parse_vec3("1,2,3 ", v3));
    CHECK(!cli_parse_vec3("1,2", v3));
    CHECK(!cli_parse_vec3("1,2,3,4", v3));
    CHECK(!cli_parse_vec3("1,inf,3", v3));
    CHECK(!cli_parse_vec3("1,2,1e39", v3));
    CHECK(!cli_parse_vec3("1,,3", v3));
    uint32_t w, h;
    CHECK(cli_parse_pair("16x9", "xX", &w, &h) && w == 16 && h == 9);
    CHECK(!cli_parse_pair("16x16junk", "xX", &w, &h));
    CHECK(!cli_parse_pair("-4294967295x5", "xX", &w, &h));
    CHECK(!cli_parse_pair("4294967297x5", "xX", &w, &h));
    CHECK(!cli_parse_pair("16x+9", "xX", &w, &h));
    CHECK(!cli_parse_pair("16x", "xX", &w, &h));
    CHECK(!cli_parse_pair("16,9", "xX", &w, &h));
    CHECK(cli_parse_pair("3,4", ",", &w, &h) && w == 3 && h == 4);
    uint32_t grid;
    CHECK(cli_parse_grid("8", &grid) && grid == 8);
    CHECK(!cli_parse_grid("+8", &grid) && !cli_parse_grid("3", &grid) &&
          !cli_parse_grid("0", &grid));

    if (failures)
        fprintf(stderr, "%d failures\n", failures);
    else
        printf("unit_cli_numbers: all checks passed\n");
    return failures ? 1 : 0;
}
