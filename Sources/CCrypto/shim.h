#ifndef DEVICECTL_CCRYPTO_SHIM_H
#define DEVICECTL_CCRYPTO_SHIM_H
// SHA256Digest uses the one-algorithm SHA256_* functions: the same SHA-NI code as EVP, without
// initialising OpenSSL 3's provider machinery (about 2 MiB of peak RSS in a backup). They are marked
// deprecated in OpenSSL 3.0 but still part of its API; keep the compiler quiet about it here.
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/evp.h>
#include <openssl/sha.h>
// MobileSync backups: SHA-1 file IDs, PBKDF2, RFC 3394 key wrap, random keys and salts.
#include <openssl/rand.h>
#endif
