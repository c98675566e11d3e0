/* hz_encode.c: program -> bytes, the decoder's inverse on decoded programs.
 *
 * The encoder runs the decoder's walk (hz_walk) in recording mode over a copy of
 * the program, then lays the bytes out the way the decoder reads them: payload
 * bytes at the front in walk order, choice bytes at the end in reverse walk order
 * (the decoder takes the last byte first). Each choice byte is the chosen value
 * itself, which the decoder reduces modulo a range it is already below. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hz_ir.h"

int
hz_encode(const HzProgram *p, uint8_t **out, size_t *out_size)
{
    int rc = -1;
    HzProgram *copy = hz_program_clone(p);
    HzWalker *w = calloc(1, sizeof(*w));
    uint8_t *buf = NULL;
    if (w == NULL)
        goto done;
    w->encoding = true;
    hz_walk(w, copy);
    size_t n = w->npayload + w->nchoices;
    buf = malloc(n ? n : 1);
    if (buf == NULL)
        goto done;
    memcpy(buf, w->payload, w->npayload);
    for (size_t i = 0; i < w->nchoices; i++)
        buf[n - 1 - i] = w->choices[i];
    *out = buf;
    *out_size = n;
    buf = NULL;
    rc = 0;
done:
    free(buf);
    free(w);
    hz_program_free(copy);
    return rc;
}

void
hz_program_normalize(HzProgram *p)
{
    HzWalker *w = calloc(1, sizeof(*w));
    if (w == NULL) {
        fprintf(stderr, "hz_program_normalize: out of memory\n");
        abort();
    }
    /* Recording mode already applies every clamp and remap to p; a decode of the
     * recorded bytes then yields the same program with unused tails zeroed. */
    w->encoding = true;
    hz_walk(w, p);
    uint8_t buf[2 * HZ_WALK_MAX];
    size_t n = w->npayload + w->nchoices;
    memcpy(buf, w->payload, w->npayload);
    for (size_t i = 0; i < w->nchoices; i++)
        buf[n - 1 - i] = w->choices[i];
    HzProgram *q = hz_decode(buf, n);
    memcpy(p, q, sizeof(*p));
    hz_program_free(q);
    free(w);
}
