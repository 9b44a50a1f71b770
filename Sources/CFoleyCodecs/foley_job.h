#ifndef FOLEY_JOB_H
#define FOLEY_JOB_H

// The job an isolated decoder runs, and what it needs of its process (foley_job.c): the layer
// below both the forked child and the streaming service, which calls neither.
#include "foley_codecs.h"
#include <stddef.h>


// What an isolated process does first: default crash signals, no core dumps, and at most
// `memory_limit` more bytes of address space.
void foley_prepare_isolated_process(size_t memory_limit);

// One job in an isolated process (the service or a forked child): fault injection when `faults`
// (tests), then a whole decode into `out` (target set) or a check of the stream from `bytes`.
void foley_run_job(const void *bytes, size_t length, const foley_target *target, double max_seconds, void *out,
                   size_t capacity, int faults, foley_decode_result *result);

// Reads a stream (the bytes, or the file at `path` when `bytes` is NULL) to its end, keeping
// nothing: the check a track passes before it streams.
void foley_check_stream(const void *bytes, size_t length, const char *path, foley_decode_result *result);

#endif
