/* zlib (RFC 1950) and gzip (RFC 1952) data inflated through the system's
 * zlib, into a buffer that grows up to a limit. */
#include <zlib.h>
#include "internal.h"

/* Deflate's largest ratio: a 258-byte match in about two bits. */
enum { MAX_RATIO = 1032 };

vxr_result vxr_inflate(const uint8_t *src, size_t n, bool gzip, size_t max, uint8_t **out,
                       size_t *out_n, const char **why) {
    *out = NULL;
    *out_n = 0;
    if (n > UINT_MAX) {
        *why = "compressed data over 4 GiB";
        return VXR_ERROR_LIMIT;
    }
    if (max / MAX_RATIO > n) max = n * (size_t)MAX_RATIO + 64; /* no more can come out */
    z_stream z = {0};
    z.next_in = (Bytef *)(uintptr_t)src;
    z.avail_in = (uInt)n;
    if (inflateInit2(&z, gzip ? 16 + MAX_WBITS : MAX_WBITS) != Z_OK) {
        *why = "out of memory";
        return VXR_ERROR_MEMORY;
    }
    size_t cap = 0, done = 0;
    uint8_t *buf = NULL;
    vxr_result r = VXR_OK;
    for (;;) {
        if (done == cap) {
            /* one byte past max tells "too large" from "exactly max" */
            size_t next = cap < 4096 ? 4096 : cap < max / 2 ? cap * 2 : max + 1;
            if (cap > max) {
                *why = "more data than the file's sizes allow";
                r = VXR_ERROR_FORMAT;
                break;
            }
            if (next > max + 1) next = max + 1;
            uint8_t *b = realloc(buf, next);
            if (!b) {
                *why = "out of memory";
                r = VXR_ERROR_MEMORY;
                break;
            }
            buf = b;
            cap = next;
        }
        const size_t room = cap - done < UINT_MAX ? cap - done : UINT_MAX;
        z.next_out = buf + done;
        z.avail_out = (uInt)room;
        const int status = inflate(&z, Z_NO_FLUSH);
        done += room - z.avail_out;
        if (status == Z_STREAM_END) break;
        if (status == Z_OK) continue;
        if (status == Z_BUF_ERROR && z.avail_in == 0) {
            *why = "compressed data cut short";
        } else if (status == Z_MEM_ERROR) {
            *why = "out of memory";
            r = VXR_ERROR_MEMORY;
            break;
        } else {
            *why = z.msg ? z.msg : "invalid compressed data";
        }
        r = VXR_ERROR_FORMAT;
        break;
    }
    if (r == VXR_OK && done > max) {
        *why = "more data than the file's sizes allow";
        r = VXR_ERROR_FORMAT;
    }
    inflateEnd(&z);
    if (r != VXR_OK) {
        free(buf);
        return r;
    }
    *out = buf;
    *out_n = done;
    return VXR_OK;
}
