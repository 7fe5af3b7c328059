#ifndef DEVICECTL_CCRYPTO_SHIM_H
#define DEVICECTL_CCRYPTO_SHIM_H
#include <openssl/evp.h>
#endif
