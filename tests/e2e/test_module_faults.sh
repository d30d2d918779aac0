#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_module_faults.sh - real modules' misbehaviour the mock now
# reproduces (issue 41), each case named after what it proves:
#  - a SIGPIPE a module's client library raises (Caml Crush's, writing to
#    its dead server worker: the mock's sigpipe=) is that call's failure,
#    not a closed standard output: exit 1, not 130, and the next test runs.
. "$TOP/tests/e2e/lib.sh"

need_mock || exit 0

# ---- a module's SIGPIPE is the module's failure ---------------------------------
# The first call in service is rsa-pkcs-sign's C_GenerateKeyPair, in the
# main thread, where the signal is not blocked: the kernel raises SIGPIPE
# there and the call fails with CKR_DEVICE_ERROR.
HSMBENCH_MOCK="sigpipe=1" run "$HSMBENCH" run --module "$MOCK" --test rsa-pkcs-sign,sha256-digest \
    --iterations 20 --json "$T/pipe.json"
check "module SIGPIPE: exit 1 (a failed test), not 130 (standard output closed)" 1 \
    '^sha256-digest .* ok$' 'generating the RSA 2048 key: CKR_DEVICE_ERROR'
file_lacks "module SIGPIPE: no interruption reported" "$T/err" "interrupted"
json_check "module SIGPIPE: the first test failed, the second ran" "$T/pipe.json" \
    'len(runs) == 2 and runs[0]["status"] == "failed" and "CKR_DEVICE_ERROR" in runs[0]["reason"] and runs[1]["status"] == "ok" and runs[1]["ops"] == 20'
