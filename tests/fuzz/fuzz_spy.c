/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/fuzz/fuzz_spy.c - the pkcs11-spy log reader (p11/replay_spy.c) and
 * the segmentation behind it (p11/replay_seg.c) on any text: the guess at
 * the format (p11_replay_is_spy) on the input's head, then the reader on
 * the whole of it, as `hsmbench replay` reads a file.  A model it accepts
 * must hold together: its kinds' counts add up to its arrivals, the
 * arrivals are in time order from 0, and every step is a catalogue test.
 */
#include "tests/fuzz/fuzz.h"

#include "p11/replay_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    (void)p11_replay_is_spy((const char *)data, size < 4096 ? size : 4096);
    if (size == 0)
        return 0;
    FILE *f = fmemopen((void *)data, size, "r");
    if (!f)
        return 0;
    static p11_replay_model m;
    memset(&m, 0, sizeof m);
    snprintf(m.path, sizeof m.path, "fuzz.log");
    char err[512];
    if (p11_replay_read_spy(f, "fuzz.log", &m, err, sizeof err) == 0) {
        uint64_t sum = 0;
        for (unsigned k = 0; k < m.nkinds; k++) {
            sum += m.kinds[k].count;
            if (m.kinds[k].nsteps == 0 || m.kinds[k].nsteps > P11_REPLAY_MAX_STEPS)
                __builtin_trap();
            for (unsigned s = 0; s < m.kinds[k].nsteps; s++)
                if (!m.kinds[k].steps[s].def || p11_test_find(m.kinds[k].steps[s].def->name) == NULL)
                    __builtin_trap();
        }
        if (sum != m.narrivals || m.narrivals == 0 || m.arrivals[0].at_ns != 0)
            __builtin_trap();
        for (size_t i = 1; i < m.narrivals; i++)
            if (m.arrivals[i].at_ns < m.arrivals[i - 1].at_ns || m.arrivals[i].kind >= m.nkinds)
                __builtin_trap();
    } else if (strchr(err, '\n') != NULL) {
        __builtin_trap();          /* an error is one line */
    }
    p11_replay_model_free(&m);
    fclose(f);
    return 0;
}
