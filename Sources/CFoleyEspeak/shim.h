// espeak-ng (GPL-3.0-or-later), for FoleySpeech only: a game that does not import FoleySpeech
// links none of it.
#include <espeak-ng/speak_lib.h>
