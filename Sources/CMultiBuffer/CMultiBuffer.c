// CMultiBuffer: AES-256-CBC of many messages through Intel's multi-buffer library (its job API), loaded on first use.
#include "CMultiBuffer.h"

#if __has_include(<intel-ipsec-mb.h>)
#include <dlfcn.h>
#include <intel-ipsec-mb.h>
#include <stdlib.h>
#include <string.h>

/// Key schedules in flight: the library holds at most IMB_MAX_JOBS jobs, so a slot is reused only after its job
/// has come back (checked, not assumed).
#define CMB_SLOTS 512

struct cmb_encryptor {
    void *library;
    IMB_MGR *manager;
    void (*free_manager)(IMB_MGR *);
    /// Expanded encryption keys, one per job in flight, and the decryption schedule the expansion also writes.
    DECLARE_ALIGNED(uint32_t schedules[CMB_SLOTS][60], 16);
    DECLARE_ALIGNED(uint32_t decryption[60], 16);
};

struct cmb_encryptor *cmb_encryptor_new(void) {
    void *library = dlopen("libIPSec_MB.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return NULL;
    IMB_MGR *(*allocate)(uint64_t) = (IMB_MGR * (*)(uint64_t)) dlsym(library, "alloc_mb_mgr");
    void (*release)(IMB_MGR *) = (void (*)(IMB_MGR *))dlsym(library, "free_mb_mgr");
    void (*initialise)(IMB_MGR *, IMB_ARCH *) = (void (*)(IMB_MGR *, IMB_ARCH *))dlsym(library, "init_mb_mgr_auto");
    void *memory = NULL;
    if (allocate && release && initialise && posix_memalign(&memory, 64, sizeof(struct cmb_encryptor)) == 0) {
        struct cmb_encryptor *encryptor = memory;
        encryptor->library = library;
        encryptor->free_manager = release;
        encryptor->manager = allocate(0);
        IMB_ARCH arch = IMB_ARCH_NONE;
        if (encryptor->manager != NULL) initialise(encryptor->manager, &arch);
        if (encryptor->manager != NULL && arch > IMB_ARCH_NOAESNI) return encryptor;
        if (encryptor->manager != NULL) release(encryptor->manager);
        free(encryptor);
    }
    dlclose(library);
    return NULL;
}

void cmb_encryptor_free(struct cmb_encryptor *encryptor) {
    if (encryptor == NULL) return;
    encryptor->free_manager(encryptor->manager);
    dlclose(encryptor->library);
    free(encryptor);
}

static size_t cmb_take_completed(IMB_MGR *manager, IMB_JOB *job, int *failed) {
    size_t count = 0;
    while (job != NULL) {
        if (job->status != IMB_STATUS_COMPLETED) *failed = 1;
        count += 1;
        job = IMB_GET_COMPLETED_JOB(manager);
    }
    return count;
}

int cmb_encrypt(struct cmb_encryptor *encryptor, const struct cmb_message *messages, size_t count) {
    for (size_t index = 0; index < count; index++) {
        uint32_t length = messages[index].length;
        if (length == 0 || length % 16 != 0 || length > CMB_MAX_LENGTH) return -1;
    }
    static const unsigned char zero[16] = {0};
    IMB_MGR *manager = encryptor->manager;
    size_t completed = 0, used = count < CMB_SLOTS ? count : CMB_SLOTS;
    int failed = 0;
    for (size_t index = 0; index < count; index++) {
        // The slot's previous job (index - CMB_SLOTS) must be back before its schedule is overwritten.
        while (index >= CMB_SLOTS && completed <= index - CMB_SLOTS) {
            IMB_JOB *flushed = IMB_FLUSH_JOB(manager);
            if (flushed == NULL) break;
            completed += cmb_take_completed(manager, flushed, &failed);
        }
        uint32_t *schedule = encryptor->schedules[index % CMB_SLOTS];
        IMB_AES_KEYEXP_256(manager, messages[index].key, schedule, encryptor->decryption);
        IMB_JOB *job = IMB_GET_NEXT_JOB(manager);
        job->cipher_direction = IMB_DIR_ENCRYPT;
        job->chain_order = IMB_ORDER_CIPHER_HASH;
        job->cipher_mode = IMB_CIPHER_CBC;
        job->hash_alg = IMB_AUTH_NULL;
        job->key_len_in_bytes = 32;
        job->enc_keys = schedule;
        job->dec_keys = encryptor->decryption;
        job->src = messages[index].data;
        job->dst = messages[index].data;
        job->cipher_start_src_offset_in_bytes = 0;
        job->msg_len_to_cipher_in_bytes = messages[index].length;
        job->iv = zero;
        job->iv_len_in_bytes = 16;
        completed += cmb_take_completed(manager, IMB_SUBMIT_JOB(manager), &failed);
    }
    IMB_JOB *flushed;
    while ((flushed = IMB_FLUSH_JOB(manager)) != NULL) completed += cmb_take_completed(manager, flushed, &failed);
    explicit_bzero(encryptor->schedules, used * sizeof encryptor->schedules[0]);
    explicit_bzero(encryptor->decryption, sizeof encryptor->decryption);
    return failed || completed != count ? -1 : 0;
}

#else
// Built without the library's header (libipsec-mb-dev: Debian packages it for amd64 only): no encryptor, ever.
struct cmb_encryptor *cmb_encryptor_new(void) { return 0; }
void cmb_encryptor_free(struct cmb_encryptor *encryptor) { (void)encryptor; }
int cmb_encrypt(struct cmb_encryptor *encryptor, const struct cmb_message *messages, size_t count) {
    (void)encryptor, (void)messages, (void)count;
    return -1;
}
#endif
