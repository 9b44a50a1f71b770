#ifndef FOLEY_CFOLEYEBUR128_SHIM_H
#define FOLEY_CFOLEYEBUR128_SHIM_H

// libebur128 (MIT, Debian's libebur128-dev): loudness (ITU-R BS.1770 / EBU R128), loudness range
// and true peak of decoded sounds.
#include <ebur128.h>

#endif
