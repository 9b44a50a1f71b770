#ifndef FOLEY_CFOLEYCRYPTO_SHIM_H
#define FOLEY_CFOLEYCRYPTO_SHIM_H

// OpenSSL's libcrypto (Debian's libssl-dev), for one thing: the SHA-256 of an offline render, so
// a golden test or a CI job can say "the same bytes" in 64 characters.
#include <openssl/evp.h>

#endif
