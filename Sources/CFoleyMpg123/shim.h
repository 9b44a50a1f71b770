// The system library mpg123, for CFoleyCodecs (which includes its headers directly).
#include <mpg123.h>
