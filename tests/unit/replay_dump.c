/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/unit/replay_dump.c - a test-only program: the replay model of a
 * file (a recording, a pkcs11-spy log, a scenario) as `hsmbench replay`
 * prints it, or its JSON (--json), for tests/e2e/test_replay_model.sh.
 *
 *   replay_dump FILE [--json]
 *
 * Exit 0, or 1 with the reader's one line on stderr; 2 on bad usage.
 */
#include <stdio.h>
#include <string.h>
#include <jansson.h>

#include "p11/replay.h"

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "--json") != 0)) {
        fprintf(stderr, "usage: replay_dump FILE [--json]\n");
        return 2;
    }
    p11_replay_model m;
    char err[1024];
    if (p11_replay_load(argv[1], &m, err, sizeof err) != 0) {
        fprintf(stderr, "replay_dump: %s\n", err);
        return 1;
    }
    int rc = 0;
    if (argc == 3) {
        json_t *j = p11_replay_model_json(&m);
        if (!j || json_dumpf(j, stdout, JSON_INDENT(2) | JSON_SORT_KEYS) != 0)
            rc = 1;
        json_decref(j);
        putchar('\n');
    } else {
        p11_replay_model_print(&m, stdout);
    }
    p11_replay_model_free(&m);
    if (fflush(stdout) != 0)
        rc = 1;
    return rc;
}
