/* SPDX-License-Identifier: Apache-2.0 */
/*
 * p11/traceformat.h - the call recorder's file: what libhsmbench-trace.so
 * (mock/trace.c) writes at the PKCS#11 module boundary and `hsmbench trace`
 * (p11/trace.c) reads.  hsmbench-trace(7) documents it for other readers.
 *
 * Why this shape.  The recorder must lose nothing when the application it
 * sits in exits, calls _exit, or is killed (SIGTERM or SIGKILL), and must
 * not add a lock or a system call to a call.  So there is no writer thread
 * and no buffer in the process's own memory: the file is mapped shared, and
 * each thread of each process writes into a chunk of it that it alone owns.
 * The kernel holds every record written in its page cache the moment it is
 * stored, whatever then happens to the process.  A chunk is claimed with an
 * atomic add on the header's next_chunk, which lives in the shared mapping,
 * so the processes a fork makes claim distinct chunks of the same file.
 *
 * Layout, all integers in the recording machine's byte order (the header's
 * byte_order field says which):
 *
 *   offset 0                  the header (HSMBENCH_TRACE_HEADER_SIZE bytes)
 *   header_size + k * chunk   chunk k: a chunk header, then records
 *
 * A record's slot is written in two steps: at entry everything known then,
 * with t_enter stored last; at exit rv, the lengths and t_exit, with t_exit
 * stored last.  So a slot whose t_enter is 0 was never used (the chunk's
 * unused tail, or a process killed between claiming and writing), and a
 * record whose t_exit is 0 is a call that had not returned when the file
 * was last written: still inside the module, or abandoned there.
 *
 * Never recorded: data, PINs, key material, attribute values, templates.
 * The key facts (type, bits) are read from the key by the recorder, once
 * per object handle, with C_GetAttributeValue on public attributes.
 */
#ifndef HSMBENCH_P11_TRACEFORMAT_H
#define HSMBENCH_P11_TRACEFORMAT_H

#include <stdint.h>

#define HSMBENCH_TRACE_MAGIC        "HSMBTRC1"   /* 8 bytes, no NUL on disk */
#define HSMBENCH_TRACE_VERSION      1u
#define HSMBENCH_TRACE_BYTE_ORDER   0x01020304u  /* as written by the recorder */
#define HSMBENCH_TRACE_HEADER_SIZE  4096u
#define HSMBENCH_TRACE_CHUNK_SIZE   65536u       /* a multiple of every page size in use */
#define HSMBENCH_TRACE_CHUNK_MAGIC  0x4b4e4843u  /* "CHNK" */
#define HSMBENCH_TRACE_PATH_MAX     1024u

typedef struct hsmbench_trace_header {
    char     magic[8];
    uint32_t version;
    uint32_t byte_order;
    uint32_t header_size;      /* where chunk 0 begins */
    uint32_t chunk_size;
    uint32_t record_size;      /* sizeof(hsmbench_trace_record) */
    uint32_t chunk_header_size;
    uint64_t next_chunk;       /* the next chunk to claim (atomic, shared across forks) */
    uint64_t next_thread;      /* the next thread number to give (atomic, likewise) */
    uint64_t mono_start_ns;    /* CLOCK_MONOTONIC when the file was made ... */
    uint64_t real_start_ns;    /* ... and CLOCK_REALTIME at the same moment */
    uint32_t pid;              /* the process that made the file */
    uint32_t real_version;     /* the traced module's C_GetFunctionList version, major << 8 | minor */
    char     module[HSMBENCH_TRACE_PATH_MAX];   /* the traced module's path, NUL-terminated */
} hsmbench_trace_header;

typedef struct hsmbench_trace_chunk {
    uint32_t magic;            /* HSMBENCH_TRACE_CHUNK_MAGIC once claimed */
    uint32_t pid;              /* the process, */
    uint32_t tid;              /* the kernel's thread id, */
    uint32_t thread;           /* and the recorder's thread number (0, 1, ...) */
    uint64_t reserved[6];
} hsmbench_trace_chunk;

/* No value (no mechanism, no key, no session) in a 64-bit field. */
#define HSMBENCH_TRACE_NONE UINT64_MAX

/* flags */
#define HSMBENCH_TRACE_F_SIZE_QUERY 0x0001u   /* the output buffer was NULL: a length query */
#define HSMBENCH_TRACE_F_OUT        0x0002u   /* out_len holds the output length the module gave */
#define HSMBENCH_TRACE_F_KEY        0x0004u   /* key_type and key_bits were read from the key */
#define HSMBENCH_TRACE_F_SLOT       0x0008u   /* session holds a slot ID, not a session handle */

typedef struct hsmbench_trace_record {
    uint64_t t_enter;          /* CLOCK_MONOTONIC ns at entry; 0: unused slot */
    uint64_t t_exit;           /* at return; 0: had not returned */
    uint64_t session;          /* hSession (or the slot ID: F_SLOT); NONE */
    uint64_t mechanism;        /* CKM_* of the call or of the session's operation; NONE */
    uint64_t object;           /* the key (an Init, DestroyObject), or the handle made
                                  (OpenSession, GenerateKey, the pair's private key); NONE */
    uint64_t key_type;         /* CKK_* of that key; NONE */
    uint64_t rv;               /* the CK_RV returned, whole */
    uint64_t in_len;           /* bytes given (data, a part, a signature, a wrapped key) */
    uint64_t out_len;          /* bytes the module gave back (F_OUT) */
    uint32_t key_bits;         /* RSA modulus bits, EC field bits, secret key bits; 0 unknown */
    uint16_t function;         /* HSMBENCH_TRACE_FN_* */
    uint16_t flags;            /* HSMBENCH_TRACE_F_* */
} hsmbench_trace_record;

/* Every function of the PKCS#11 3.2 list, in its order (CK_FUNCTION_LIST_3_2). */
#define HSMBENCH_TRACE_FUNCTIONS(X) \
    X(Initialize) X(Finalize) X(GetInfo) X(GetFunctionList) X(GetSlotList) X(GetSlotInfo) \
    X(GetTokenInfo) X(GetMechanismList) X(GetMechanismInfo) X(InitToken) X(InitPIN) X(SetPIN) \
    X(OpenSession) X(CloseSession) X(CloseAllSessions) X(GetSessionInfo) X(GetOperationState) \
    X(SetOperationState) X(Login) X(Logout) X(CreateObject) X(CopyObject) X(DestroyObject) \
    X(GetObjectSize) X(GetAttributeValue) X(SetAttributeValue) X(FindObjectsInit) X(FindObjects) \
    X(FindObjectsFinal) X(EncryptInit) X(Encrypt) X(EncryptUpdate) X(EncryptFinal) X(DecryptInit) \
    X(Decrypt) X(DecryptUpdate) X(DecryptFinal) X(DigestInit) X(Digest) X(DigestUpdate) \
    X(DigestKey) X(DigestFinal) X(SignInit) X(Sign) X(SignUpdate) X(SignFinal) X(SignRecoverInit) \
    X(SignRecover) X(VerifyInit) X(Verify) X(VerifyUpdate) X(VerifyFinal) X(VerifyRecoverInit) \
    X(VerifyRecover) X(DigestEncryptUpdate) X(DecryptDigestUpdate) X(SignEncryptUpdate) \
    X(DecryptVerifyUpdate) X(GenerateKey) X(GenerateKeyPair) X(WrapKey) X(UnwrapKey) X(DeriveKey) \
    X(SeedRandom) X(GenerateRandom) X(GetFunctionStatus) X(CancelFunction) X(WaitForSlotEvent) \
    X(GetInterfaceList) X(GetInterface) X(LoginUser) X(SessionCancel) X(MessageEncryptInit) \
    X(EncryptMessage) X(EncryptMessageBegin) X(EncryptMessageNext) X(MessageEncryptFinal) \
    X(MessageDecryptInit) X(DecryptMessage) X(DecryptMessageBegin) X(DecryptMessageNext) \
    X(MessageDecryptFinal) X(MessageSignInit) X(SignMessage) X(SignMessageBegin) \
    X(SignMessageNext) X(MessageSignFinal) X(MessageVerifyInit) X(VerifyMessage) \
    X(VerifyMessageBegin) X(VerifyMessageNext) X(MessageVerifyFinal) X(EncapsulateKey) \
    X(DecapsulateKey) X(VerifySignatureInit) X(VerifySignature) X(VerifySignatureUpdate) \
    X(VerifySignatureFinal) X(GetSessionValidationFlags) X(AsyncComplete) X(AsyncGetID) \
    X(AsyncJoin) X(WrapKeyAuthenticated) X(UnwrapKeyAuthenticated)

#define HSMBENCH_TRACE_FN_ENUM(name) HSMBENCH_TRACE_FN_##name,
enum hsmbench_trace_fn { HSMBENCH_TRACE_FUNCTIONS(HSMBENCH_TRACE_FN_ENUM) HSMBENCH_TRACE_FN_COUNT };
#undef HSMBENCH_TRACE_FN_ENUM

#endif
