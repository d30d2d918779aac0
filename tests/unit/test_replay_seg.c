/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/unit/test_replay_seg.c - what the recording and pkcs11-spy readers
 * share (p11/replay_seg.c), on synthetic operations: which catalogue test
 * and parameters an operation is (p11_replay_map), and the segmentation
 * rule: transactions cut at each occurrence of a session's first
 * operation, think times as medians, threads renumbered, concurrency,
 * failed and unknown operations and set-up calls counted and not
 * replayed, and the fall-back to one operation a transaction.
 *
 * early: no check depends on the cores it gets (fixed inputs, no clock)
 */
#include <string.h>

#include "p11/pkcs11_3x.h"
#include "p11/replay_int.h"
#include "p11/trace.h"
#include "tests/unit/check.h"

#define MS 1000000ull
#define NONE HSMBENCH_TRACE_NONE

static p11_replay_op op_of(unsigned fn, uint64_t mech, uint32_t bits, uint64_t in, uint64_t out)
{
    p11_replay_op o;
    memset(&o, 0, sizeof o);
    o.op = 1;
    o.fn = fn;
    o.mechanism = mech;
    o.key_bits = bits;
    o.in_len = in;
    o.out_len = out;
    o.session = 1;
    o.rv = CKR_OK;
    return o;
}

static const char *mapped(p11_replay_op o, p11_test_params *p, int *guessed)
{
    const p11_test_def *def = NULL;
    if (!p11_replay_map(&o, &def, p, guessed))
        return NULL;
    return def->name;
}

#define FN(x) HSMBENCH_TRACE_FN_##x

static void map_signatures(void)
{
    p11_test_params p;
    int g;
    const char *n = mapped(op_of(FN(Sign), CKM_ECDSA, 256, 32, 64), &p, &g);
    CHECK(n && strcmp(n, "ecdsa-sign") == 0 && strcmp(p.curve, "P-256") == 0 &&
          p.hash == P11_HASH_SHA256 && g == 0);
    /* no key size: from the signature's length, flagged */
    n = mapped(op_of(FN(Sign), CKM_ECDSA, 0, 48, 96), &p, &g);
    CHECK(n && strcmp(n, "ecdsa-sign") == 0 && strcmp(p.curve, "P-384") == 0 &&
          p.hash == P11_HASH_SHA384 && (g & 1));
    n = mapped(op_of(FN(Sign), CKM_SHA256_RSA_PKCS, 3072, 100, 384), &p, &g);
    CHECK(n && strcmp(n, "rsa-pkcs-sign") == 0 && p.key_bits == 3072 && p.hash == P11_HASH_SHA256 &&
          p.data_size == 100);
    /* CKM_RSA_PKCS over a DigestInfo: the hash its length says */
    n = mapped(op_of(FN(Sign), CKM_RSA_PKCS, 0, 51, 256), &p, &g);
    CHECK(n && strcmp(n, "rsa-pkcs-sign-prehashed") == 0 && p.key_bits == 2048 &&
          p.hash == P11_HASH_SHA256 && (g & 1));
    n = mapped(op_of(FN(Sign), CKM_SHA512_HMAC, 512, 64, 64), &p, &g);
    CHECK(n && strcmp(n, "hmac-sha512") == 0 && p.data_size == 64);
}

static void map_others(void)
{
    p11_test_params p;
    int g;
    const char *n = mapped(op_of(FN(GenerateKey), CKM_AES_KEY_GEN, 128, 0, UINT64_MAX), &p, &g);
    CHECK(n && strcmp(n, "aes-keygen") == 0 && p.key_bits == 128 && g == 0);
    n = mapped(op_of(FN(GenerateKeyPair), CKM_EC_KEY_PAIR_GEN, 384, 0, UINT64_MAX), &p, &g);
    CHECK(n && strcmp(n, "ec-keygen") == 0 && strcmp(p.curve, "P-384") == 0);
    n = mapped(op_of(FN(GenerateKeyPair), CKM_RSA_PKCS_KEY_PAIR_GEN, 4096, 0, UINT64_MAX), &p, &g);
    CHECK(n && strcmp(n, "rsa-keygen") == 0 && p.key_bits == 4096);
    n = mapped(op_of(FN(UnwrapKey), CKM_RSA_PKCS_OAEP, 2048, 256, UINT64_MAX), &p, &g);
    CHECK(n && strcmp(n, "rsa-oaep-unwrap") == 0 && p.key_bits == 2048);
    n = mapped(op_of(FN(WrapKey), CKM_AES_KEY_WRAP, 256, 0, 40), &p, &g);
    CHECK(n && strcmp(n, "aes-key-wrap") == 0);
    n = mapped(op_of(FN(UnwrapKey), CKM_AES_KEY_WRAP_PAD, 256, 40, UINT64_MAX), &p, &g);
    CHECK(n && strcmp(n, "aes-key-unwrap-pad") == 0);
    n = mapped(op_of(FN(DeriveKey), CKM_ECDH1_DERIVE, 256, 0, UINT64_MAX), &p, &g);
    CHECK(n && strcmp(n, "ecdh-derive") == 0 && strcmp(p.curve, "P-256") == 0);
    n = mapped(op_of(FN(GenerateRandom), NONE, 0, 48, UINT64_MAX), &p, &g);
    CHECK(n && strcmp(n, "random") == 0 && p.data_size == 48);
    n = mapped(op_of(FN(FindObjects), NONE, 0, 0, UINT64_MAX), &p, &g);
    CHECK(n && strcmp(n, "find-objects") == 0 && g == 0);
    n = mapped(op_of(FN(Digest), CKM_SHA256, 0, 4096, 32), &p, &g);
    CHECK(n && strcmp(n, "sha256-digest") == 0 && p.data_size == 4096);
    /* a GCM decryption's plaintext: the ciphertext less its tag, or what it gave back */
    n = mapped(op_of(FN(Decrypt), CKM_AES_GCM, 256, 1040, UINT64_MAX), &p, &g);
    CHECK(n && strcmp(n, "aes-gcm-decrypt") == 0 && p.data_size == 1024);
    n = mapped(op_of(FN(Decrypt), CKM_RSA_PKCS_OAEP, 2048, 256, 32), &p, &g);
    CHECK(n && strcmp(n, "rsa-oaep-decrypt") == 0 && p.data_size == 32);
}

static void map_refuses(void)
{
    p11_test_params p;
    int g;
    /* a mechanism no test uses, a key size no test takes, data no test takes: never guessed */
    CHECK(mapped(op_of(FN(Sign), CKM_SHA3_256_RSA_PKCS, 2048, 32, 256), &p, &g) == NULL);
    CHECK(mapped(op_of(FN(Encrypt), CKM_RSA_PKCS, 2048, 32, 256), &p, &g) == NULL);
    CHECK(mapped(op_of(FN(Sign), CKM_SHA256_RSA_PKCS, 1536, 32, 192), &p, &g) == NULL);
    CHECK(mapped(op_of(FN(Sign), CKM_ECDSA, 224, 28, 56), &p, &g) == NULL);
    CHECK(mapped(op_of(FN(Encrypt), CKM_AES_CBC, 256, 17, 32), &p, &g) == NULL);
    CHECK(mapped(op_of(FN(Encrypt), CKM_AES_GCM, 256, 100000, 100016), &p, &g) == NULL);
    /* PSS with SHA-512 does not fit RSA 1024: refused quietly, not printed */
    CHECK(mapped(op_of(FN(Sign), CKM_SHA512_RSA_PKCS_PSS, 1024, 32, 128), &p, &g) == NULL);
}

/* ---- segmentation ---------------------------------------------------------------------------- */

typedef struct feed {
    p11_replay_seg  *s;
    int              bad;
    p11_replay_model m;
    char             err[256];
} feed;

/* A segmentation and the model it fills: 0 when out of memory. */
static int begin(feed *f)
{
    memset(f, 0, sizeof *f);
    f->s = p11_replay_seg_new();
    return f->s != NULL;
}

static int finish(feed *f, const char *path)
{
    snprintf(f->m.path, sizeof f->m.path, "%s", path);
    return p11_replay_seg_finish(f->s, &f->m, path, f->err, sizeof f->err);
}

static void end(feed *f)
{
    p11_replay_model_free(&f->m);
    p11_replay_seg_free(f->s);
}

static void add(feed *f, p11_replay_op o)
{
    if (p11_replay_seg_add(f->s, &o) != 0)
        f->bad = 1;
}

static void call(feed *f, unsigned fn, uint32_t pid, uint64_t session, uint64_t at)
{
    p11_replay_op o;
    memset(&o, 0, sizeof o);
    o.fn = fn;
    o.pid = pid;
    o.session = session;
    o.start_ns = o.end_ns = at;
    o.rv = CKR_OK;
    o.thread = 0;
    add(f, o);
}

static p11_replay_op at(p11_replay_op o, uint32_t pid, uint32_t thread, uint64_t session,
                        uint64_t start, uint64_t end)
{
    o.pid = pid;
    o.thread = thread;
    o.session = session;
    o.start_ns = start;
    o.end_ns = end;
    return o;
}

static const p11_replay_skip *skipped(const p11_replay_model *m, const char *what)
{
    for (unsigned i = 0; i < m->nskipped; i++)
        if (strcmp(m->skipped[i].what, what) == 0)
            return &m->skipped[i];
    return NULL;
}

static void find_then_sign(void)
{
    feed f;
    const p11_replay_model *m = &f.m;
    const p11_replay_op find = op_of(FN(FindObjects), NONE, 0, 0, UINT64_MAX);
    const p11_replay_op sign = op_of(FN(Sign), CKM_ECDSA, 256, 32, 64);
    if (!begin(&f)) {
        CHECK(!"out of memory");
        return;
    }
    /* thread 7 of process 100: three find-then-sign in session 5, thinking
     * 1, 2 and 9 ms between; thread 9: one, in session 6, overlapping */
    call(&f, FN(Initialize), 100, NONE, 0);
    call(&f, FN(OpenSession), 100, 5, 1 * MS);
    call(&f, FN(Login), 100, 5, 2 * MS);
    uint64_t t = 10 * MS;
    const uint64_t think[3] = { 1 * MS, 2 * MS, 9 * MS };
    for (int i = 0; i < 3; i++) {
        add(&f, at(find, 100, 7, 5, t, t + MS));
        add(&f, at(sign, 100, 7, 5, t + MS + think[i], t + 3 * MS + think[i]));
        t += 20 * MS;
    }
    call(&f, FN(CloseSession), 100, 5, t);
    call(&f, FN(OpenSession), 100, 6, 1 * MS);
    add(&f, at(find, 100, 9, 6, 11 * MS, 12 * MS));
    add(&f, at(sign, 100, 9, 6, 12 * MS, 14 * MS));
    /* a failed signature, and one no test makes */
    p11_replay_op failed = at(sign, 100, 9, 6, 15 * MS, 16 * MS);
    failed.rv = CKR_DEVICE_ERROR;
    add(&f, failed);
    add(&f, at(op_of(FN(Sign), CKM_SHA3_256_RSA_PKCS, 2048, 32, 256), 100, 9, 6, 17 * MS, 18 * MS));
    CHECK(!f.bad);
    const int rc = finish(&f, "synthetic");
    CHECK_MSG(rc == 0, "%s", f.err);
    CHECK(m->nkinds == 1 && m->narrivals == 4);
    CHECK(strcmp(m->kinds[0].name, "find-objects+ecdsa-sign") == 0 && m->kinds[0].nsteps == 2);
    CHECK(m->kinds[0].steps[0].think_ns == 0);
    /* thinks 1, 2, 9 and 0 ms: the median (lower of the middle two) */
    CHECK_MSG(m->kinds[0].steps[1].think_ns == 1 * MS, "%llu",
              (unsigned long long)m->kinds[0].steps[1].think_ns);
    CHECK(m->threads == 2 && m->concurrency == 2);
    CHECK(m->arrivals[0].at_ns == 0 && m->arrivals[1].at_ns == 1 * MS);
    CHECK(m->arrivals[0].thread == 0 && m->arrivals[1].thread == 1);
    const p11_replay_skip *k = skipped(m, "ecdsa-sign");
    CHECK(k && k->count == 1 && strcmp(k->why, "failed in the recording") == 0);
    k = skipped(m, "C_Sign CKM_SHA3_256_RSA_PKCS");
    CHECK(k && k->count == 1 && strcmp(k->why, "no catalogue test makes it") == 0);
    k = skipped(m, "C_OpenSession");
    CHECK(k && k->count == 2 && strcmp(k->why, "the run's own set-up") == 0);
    k = skipped(m, "C_Login");
    CHECK(k && k->count == 1);
    end(&f);
}

/* A session handle opened again is another lifetime: its pattern starts anew. */
static void handle_reused(void)
{
    feed f;
    const p11_replay_model *m = &f.m;
    const p11_replay_op unwrap = op_of(FN(UnwrapKey), CKM_RSA_PKCS_OAEP, 2048, 256, UINT64_MAX);
    const p11_replay_op dec = op_of(FN(Decrypt), CKM_AES_GCM, 256, 1040, 1024);
    const p11_replay_op rnd = op_of(FN(GenerateRandom), NONE, 0, 32, UINT64_MAX);
    if (!begin(&f))
        return;
    /* lifetime 1: unwrap, decrypt, unwrap, decrypt; lifetime 2 (same handle):
     * random, unwrap, decrypt: a transaction random+unwrap+decrypt */
    call(&f, FN(OpenSession), 1, 1, 0);
    add(&f, at(unwrap, 1, 0, 1, 1 * MS, 2 * MS));
    add(&f, at(dec, 1, 0, 1, 2 * MS, 3 * MS));
    add(&f, at(unwrap, 1, 0, 1, 4 * MS, 5 * MS));
    add(&f, at(dec, 1, 0, 1, 5 * MS, 6 * MS));
    call(&f, FN(CloseSession), 1, 1, 7 * MS);
    call(&f, FN(OpenSession), 1, 1, 8 * MS);
    add(&f, at(rnd, 1, 0, 1, 9 * MS, 10 * MS));
    add(&f, at(unwrap, 1, 0, 1, 10 * MS, 11 * MS));
    add(&f, at(dec, 1, 0, 1, 11 * MS, 12 * MS));
    const int rc = finish(&f, "synthetic");
    CHECK_MSG(rc == 0, "%s", f.err);
    CHECK(m->nkinds == 2 && m->narrivals == 3);
    CHECK(m->nkinds == 2 && strcmp(m->kinds[0].name, "rsa-oaep-unwrap+aes-gcm-decrypt") == 0 &&
          m->kinds[0].count == 2 && strcmp(m->kinds[1].name, "random+rsa-oaep-unwrap+aes-gcm-decrypt") == 0);
    CHECK(m->threads == 1 && m->concurrency == 1);
    end(&f);
}

/* Longer than P11_REPLAY_MAX_STEPS: one operation a transaction, said in limits. */
static void too_long(void)
{
    feed f;
    const p11_replay_model *m = &f.m;
    if (!begin(&f))
        return;
    add(&f, at(op_of(FN(FindObjects), NONE, 0, 0, UINT64_MAX), 1, 0, 1, 0, MS));
    for (unsigned i = 0; i < P11_REPLAY_MAX_STEPS + 4; i++)
        add(&f, at(op_of(FN(Sign), CKM_ECDSA, 256, 32, 64), 1, 0, 1, (i + 1) * MS, (i + 2) * MS));
    const int rc = finish(&f, "synthetic");
    CHECK_MSG(rc == 0, "%s", f.err);
    CHECK(m->nkinds == 2 && m->narrivals == P11_REPLAY_MAX_STEPS + 5 && m->nlimits == 1);
    CHECK(m->nkinds == 2 && m->kinds[1].count == P11_REPLAY_MAX_STEPS + 4 && m->kinds[1].nsteps == 1);
    end(&f);
}

/* Nothing replayable: one line, naming the file. */
static void nothing(void)
{
    feed f;
    if (!begin(&f))
        return;
    call(&f, FN(Initialize), 1, NONE, 0);
    CHECK(finish(&f, "empty.log") == -1);
    CHECK(strstr(f.err, "empty.log") != NULL && strchr(f.err, '\n') == NULL);
    end(&f);
}

int main(void)
{
    RUN(map_signatures);
    RUN(map_others);
    RUN(map_refuses);
    RUN(find_then_sign);
    RUN(handle_reused);
    RUN(too_long);
    RUN(nothing);
    return check_finish();
}
