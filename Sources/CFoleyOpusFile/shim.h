// The system library opusfile, for CFoleyCodecs (which includes its headers directly).
#include <opusfile.h>
