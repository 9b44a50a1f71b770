// A decode job as a child process runs it: the process's own limits set, the job's bytes decoded
// whole or checked to the end, the outcome written into memory shared with the game. Both ways of
// isolating a decoder use it: the forked child (foley_isolate.c) and the streaming service's
// process (foley_service.c). It calls neither of them.
#define _GNU_SOURCE
#include "foley_job.h"
#include "foley_platform.h"
#include "codec_internal.h"
#include <ebur128.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

// MARK: - Shared mappings

void *foley_shared_alloc(size_t size) {
  void *memory = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return memory == MAP_FAILED ? NULL : memory;
}

void foley_shared_free(void *memory, size_t size) {
  if (memory) munmap(memory, size);
}

// MARK: - The job

// The child's address space right now.
static size_t current_address_space(void) { return foley_platform_memory_bytes(0); }

// Fault injection for the tests of containment, active only when FOLEY_DECODER_FAULTS is set
// (debug builds: see foley_decoder_faults):
// bytes starting "FOLEY-FAULT:SEGV", ":HANG" or ":HEAP" make the child crash, spin, or allocate
// until its address-space limit stops it, exactly as a broken decoder would.
static void inject_fault(const void *bytes, size_t length, int faults) {
  if (!faults || !bytes || length < 16 || memcmp(bytes, "FOLEY-FAULT:", 12) != 0) return;
  const char *kind = (const char *)bytes + 12;
  if (memcmp(kind, "SEGV", 4) == 0) raise(SIGSEGV);
  if (memcmp(kind, "HANG", 4) == 0) {
    for (volatile unsigned spin = 0;; spin++) {
    }
  }
  if (memcmp(kind, "HEAP", 4) == 0) {
    for (;;) {
      volatile char *block = malloc(16 << 20);
      if (!block) abort();  // what a decoder that does not check malloc would do next
      block[0] = 1;
    }
  }
}

// Reads a stream to its end, keeping nothing (see foley_job.h).
void foley_check_stream(const void *bytes, size_t length, const char *path, foley_decode_result *result) {
  int status = FOLEY_OK;
  foley_source *source =
      bytes ? foley_source_open_memory(bytes, length, &result->info, &status, result->message, sizeof result->message)
            : foley_source_open_file(path, &result->info, &status, result->message, sizeof result->message);
  if (!source) {
    result->status = status;
    return;
  }
  float *scratch = malloc(sizeof(float) * 8192 * (size_t)result->info.channels);
  // The track is read to its end anyway: its loudness is measured on the way (BS.1770), with
  // its loudness range (EBU Tech 3342). Histogram mode keeps the meter's memory constant however
  // long the track is.
  ebur128_state *meter =
      ebur128_init((unsigned)result->info.channels, (unsigned long)result->info.sample_rate,
                   EBUR128_MODE_I | EBUR128_MODE_LRA | EBUR128_MODE_TRUE_PEAK | EBUR128_MODE_HISTOGRAM);
  int64_t frames = 0, got = 0;
  while (scratch && (got = foley_source_read(source, scratch, 8192)) > 0) {
    frames += got;
    if (meter) ebur128_add_frames_float(meter, scratch, (size_t)got);
  }
  if (meter && got == 0 && frames > 0) {
    double loudness = -HUGE_VAL, peak = 0;
    if (ebur128_loudness_global(meter, &loudness) == EBUR128_SUCCESS) {
      for (int channel = 0; channel < result->info.channels; channel++) {
        double value = 0;
        if (ebur128_true_peak(meter, (unsigned)channel, &value) == EBUR128_SUCCESS && value > peak) peak = value;
      }
      double range = 0;
      if (ebur128_loudness_range(meter, &range) != EBUR128_SUCCESS) range = 0;
      result->has_loudness = 1;
      result->loudness = loudness;
      result->loudness_range = range;
      result->true_peak = peak;
    }
  }
  if (meter) ebur128_destroy(&meter);
  // Streaming seeks (to the loop start, and wherever the game asks): a decoder that survives a
  // linear read can still fail after a seek, so the check seeks too, and reads a little after each.
  if (scratch && got == 0 && frames > 0) {
    int64_t targets[] = {result->info.loop_start, frames / 4, frames / 2, (frames * 3) / 4, 0};
    for (size_t index = 0; index < sizeof targets / sizeof targets[0]; index++) {
      if (targets[index] < 0 || targets[index] >= frames) continue;
      if (foley_source_seek(source, targets[index]) != 0) continue;
      for (int block = 0; block < 4 && foley_source_read(source, scratch, 8192) > 0; block++) {
      }
    }
  }
  if (!scratch) {
    result->status = FOLEY_ERR_NOMEM;
  } else if (got < 0 && frames == 0) {
    result->status = FOLEY_ERR_CORRUPT;
    snprintf(result->message, sizeof result->message, "%s", foley_source_error(source));
  } else {
    result->status = frames > 0 ? FOLEY_OK : FOLEY_ERR_NO_SAMPLES;
    result->frames = frames;
  }
  free(scratch);
  foley_source_close(source);
}

void foley_prepare_isolated_process(size_t memory_limit) {
  static const int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS, SIGXCPU};
  for (size_t index = 0; index < sizeof fatal / sizeof fatal[0]; index++) signal(fatal[index], SIG_DFL);
  struct rlimit none = {0, 0};
  setrlimit(RLIMIT_CORE, &none);
  size_t now = current_address_space();
  if (now > 0) {
    struct rlimit space = {now + memory_limit, now + memory_limit};
    setrlimit(RLIMIT_AS, &space);
  } else {
    // The platform cannot tell the address space (the POSIX seam): the private writable memory
    // is capped instead, at the most this process has had resident so far plus the limit,
    // rounded up to 64 MiB so that a restart gets the same cap. Linux enforces it; macOS does
    // not, and there a runaway decoder is stopped by its time limit.
    size_t resident = foley_platform_memory_bytes(1);
    size_t cap = (resident + memory_limit + ((size_t)64 << 20) - 1) & ~(((size_t)64 << 20) - 1);
    struct rlimit data = {cap, cap};
    setrlimit(RLIMIT_DATA, &data);
  }
}

void foley_run_job(const void *bytes, size_t length, const foley_target *target, double max_seconds, void *out,
                   size_t capacity, int faults, foley_decode_result *result) {
  inject_fault(bytes, length, faults);
  if (target) {
    foley_decode_whole(bytes, length, target, max_seconds, out, capacity, result);
  } else {
    foley_check_stream(bytes, length, NULL, result);
  }
}
