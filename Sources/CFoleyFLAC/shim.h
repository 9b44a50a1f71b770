// The system library FLAC, for CFoleyCodecs (which includes its headers directly).
#include <FLAC/stream_decoder.h>
