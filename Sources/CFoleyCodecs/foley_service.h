#ifndef FOLEY_SERVICE_H
#define FOLEY_SERVICE_H

#include "foley_codecs.h"

// Runs a job in the decoding service: a decode of at most `capacity` output bytes when `target`
// is set (the samples come back in a new SDL_malloc buffer, *samples), else a check of the stream
// to its end. Returns the status, or -1 when the service cannot take the job (the caller then
// forks a child for it).
int foley_service_run(const void *bytes, size_t length, const foley_target *target, double max_seconds,
                      int timeout_ms, size_t memory_limit, size_t capacity, int faults, foley_decode_result *result,
                      void **samples);

// A field of /proc/self/statm in bytes (0 the address space, 1 the resident memory), 0 if it
// cannot be read. Async-signal-safe (open, read, close): a forked child may call it.
size_t foley_statm_bytes(int field);

// What an isolated process does first: default crash signals, no core dumps, and at most
// `memory_limit` more bytes of address space.
void foley_prepare_isolated_process(size_t memory_limit);

// One job in an isolated process (the service or a forked child): fault injection when `faults`
// (tests), then a whole decode into `out` (target set) or a check of the stream from `bytes`.
void foley_run_job(const void *bytes, size_t length, const foley_target *target, double max_seconds, void *out,
                   size_t capacity, int faults, foley_decode_result *result);

#endif
