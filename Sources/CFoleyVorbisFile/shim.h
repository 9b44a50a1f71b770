// The system library vorbisfile, for CFoleyCodecs (which includes its headers directly).
#include <vorbis/vorbisfile.h>
