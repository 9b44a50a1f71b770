#ifndef FOLEY_CFOLEYKISSFFT_SHIM_H
#define FOLEY_CFOLEYKISSFFT_SHIM_H

// kissfft (BSD-3-Clause, Debian's libkissfft-dev), float build: the inspector's spectra.
#ifndef kiss_fft_scalar
#define kiss_fft_scalar float
#endif
#include <kissfft/kiss_fftr.h>

#endif
