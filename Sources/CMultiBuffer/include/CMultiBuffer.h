// CMultiBuffer: AES-256-CBC over many files at once, one thread, when Intel's multi-buffer library is installed.
#ifndef DEVICECTL_CMULTIBUFFER_H
#define DEVICECTL_CMULTIBUFFER_H

#include <stddef.h>
#include <stdint.h>

/// One message: `length` bytes at `data` (whole blocks, at most `CMB_MAX_LENGTH`), encrypted in place under the
/// 32-byte `key` with a zero IV.
struct cmb_message {
    unsigned char *data;
    const unsigned char *key;
    uint32_t length;
};

/// The longest message: the library's limit on one job (65,535 bytes), in whole blocks.
#define CMB_MAX_LENGTH 65520u

struct cmb_encryptor;

/// An encryptor over libIPSec_MB.so.1 (Debian's libipsec-mb1), or NULL when the library cannot be loaded or the
/// processor has no AES instructions: the caller then encrypts each message itself.
struct cmb_encryptor *cmb_encryptor_new(void);

/// Frees the encryptor; the key schedules it held were cleared after each call.
void cmb_encryptor_free(struct cmb_encryptor *encryptor);

/// Encrypts `count` messages, interleaving up to the processor's lanes; 0, or -1 when a message was refused (a
/// length that is not whole blocks or too long; nothing is encrypted then). Clears every key schedule it made.
int cmb_encrypt(struct cmb_encryptor *encryptor, const struct cmb_message *messages, size_t count);

#endif
