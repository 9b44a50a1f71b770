#ifndef FOLEY_SERVICE_H
#define FOLEY_SERVICE_H

#include "foley_codecs.h"
#include "foley_job.h"

// Runs a job in the decoding service: a decode of at most `capacity` output bytes when `target`
// is set (the samples come back in a new SDL_malloc buffer, *samples), else a check of the stream
// to its end. Returns the status, or -1 when the service cannot take the job (the caller then
// forks a child for it).
int foley_service_run(const void *bytes, size_t length, const foley_target *target, double max_seconds,
                      int timeout_ms, size_t memory_limit, size_t capacity, int faults, foley_decode_result *result,
                      void **samples);

#endif
