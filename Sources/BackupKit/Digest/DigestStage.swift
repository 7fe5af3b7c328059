// Stage support: SHA-256 (OpenSSL's SHA256_CTX), used by the backup's hashing and restore's and verify's checks.
//
// Threads: one `SHA256Digest` per thread; never shared.
