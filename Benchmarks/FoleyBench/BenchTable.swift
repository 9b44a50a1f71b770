import Foundation

/// The Markdown table of figures, targets and verdicts (BENCHMARKS.md carries a copy).
struct BenchTable {
  private(set) var rows = [
    "| figure | median | min | target | verdict |", "| --- | ---: | ---: | --- | --- |",
  ]

  private mutating func row(
    _ name: String, _ median: Double?, _ minimum: Double? = nil, _ target: String, _ met: Bool?
  ) {
    // A figure too small for three decimals is not shown as 0 (a count per trigger that missed 0
    // read "0.000 … MISSED").
    func format(_ number: Double?) -> String {
      number.map { $0 != 0 && abs($0) < 0.0005 ? String(format: "%.1e", $0) : String(format: "%.3f", $0) }
        ?? "null"
    }
    let verdict = met.map { $0 ? "met" : "MISSED" } ?? ""
    rows.append(
      "| `\(name)` | \(format(median)) | \(minimum == nil ? "" : format(minimum)) | \(target) | \(verdict) |")
  }

  mutating func fill(results: [String: Any], samples: [String: BenchReport.Samples]) {
    func number(_ key: String) -> Double? { results[key] as? Double }
    func minimum(_ key: String) -> Double? { number("\(key)_min") }
    func keyed(_ key: String, _ size: String) -> Double? { (results[key] as? [String: Double])?[size] }
    func keyedMin(_ key: String, _ size: String) -> Double? {
      (results["\(key)_min"] as? [String: Double])?[size]
    }
    func ratio(_ a: Double?, _ b: Double?) -> Double? { a.flatMap { a in b.map { a / max($0, 1e-9) } } }

    // A trigger's lines: 0.3 µs of game thread and 1.0 µs of process CPU; Foley's process CPU
    // over C's is shown beside them as a reference.
    row(
      "trigger_cpu_us", number("trigger_cpu_us"), minimum("trigger_cpu_us"),
      "≤ 0.3 (game-thread CPU)", number("trigger_cpu_us").map { $0 <= 0.3 })
    let process = number("trigger_process_cpu_us")
    let rawProcess = number("raw_c_trigger_cpu_us")
    row(
      "trigger_process_cpu_us", process, minimum("trigger_process_cpu_us"),
      "≤ 1.0 (process CPU, 256 channels)",
      process.map { $0 <= 1.0 })
    row(
      "trigger_process_cpu_us ÷ raw_c_trigger_cpu_us", ratio(process, rawProcess), nil,
      "reference: Foley's process CPU per trigger over C's", nil)
    row("raw_c_trigger_cpu_us", rawProcess, nil, "baseline (C, process CPU, 256 channels)", nil)
    // A capture running: the game thread does what it does without one (the queue stamps and
    // hands the lines on; a writer of its own encodes and writes them).
    let captured = number("capture_trigger_cpu_us")
    let plain = number("trigger_cpu_us")
    row(
      "capture_trigger_cpu_us", captured, minimum("capture_trigger_cpu_us"),
      "≤ trigger_cpu_us × 1.1 (game-thread CPU per trigger, every trigger captured)",
      captured.flatMap { c in plain.map { c <= $0 * 1.1 } })
    let capturedProcess = number("capture_trigger_process_cpu_us")
    row(
      "capture_trigger_process_cpu_us", capturedProcess, minimum("capture_trigger_process_cpu_us"),
      "reference: process CPU per trigger with its line encoded and written", nil)
    row(
      "capture_trigger_process_cpu_us ÷ trigger_process_cpu_us", ratio(capturedProcess, process), nil,
      "reference: what capturing every trigger costs the process", nil)
    row(
      "capture_start_stop_us", number("capture_start_stop_us"), minimum("capture_start_stop_us"),
      "reference: game-thread CPU to start and stop a capture (file opened, header, flush, fsync)", nil)
    // A rollback timeline: a request costs what engine.play of the same sound costs in the same
    // run (within a tenth), and what it holds stays flat over a long match.
    let rollbackRequest = number("rollback_request_cpu_us")
    let rollbackPlain = number("rollback_plain_play_cpu_us")
    row(
      "rollback_request_cpu_us", rollbackRequest, nil,
      "≤ rollback_plain_play_cpu_us × 1.1 (game-thread CPU per request through a rollback timeline)",
      rollbackRequest.flatMap { r in rollbackPlain.map { r <= $0 * 1.1 } })
    row(
      "rollback_plain_play_cpu_us", rollbackPlain, nil,
      "reference: engine.play of the same sounds on their frames, the same run", nil)
    row(
      "rollback_cpu_us", number("rollback_cpu_us"), nil,
      "reference: game-thread CPU per rollback (6 frames re-simulated and reconciled)", nil)
    let heldFirst = number("rollback_held_first_minute")
    let heldLast = number("rollback_held_last_minute")
    row(
      "rollback_held_last_minute", heldLast, nil,
      "≤ rollback_held_first_minute (requests held, last minute against first)",
      heldLast.flatMap { last in heldFirst.map { last <= $0 } })
    row(
      "rollback_resident_growth_kib", number("rollback_resident_growth_kib"), nil,
      "≤ 512 (resident growth after the first minute of a long match)",
      number("rollback_resident_growth_kib").map { $0 <= 512 })
    // The baseline above pays for a failing Mix_PlayChannel(-1) (an error string) and two scans of
    // the channels; SDL_mixer itself can do less. Beside it, so no row flatters Foley.
    let floor = number("raw_c_trigger_floor_cpu_us")
    row(
      "raw_c_trigger_floor_cpu_us", floor, nil,
      "SDL_mixer's floor (C: Mix_PlayChannel on the next channel in turn, 256 channels)", nil)
    row(
      "trigger_process_cpu_us ÷ floor", ratio(process, floor), nil,
      "reference: Foley's process CPU per trigger over SDL_mixer's floor", nil)
    row(
      "trigger_allocations", number("trigger_allocations"), nil,
      "0 (allocations per trigger on the game thread, paced at 60 Hz: 1,000 nodes a frame against 100)",
      number("trigger_allocations").map { $0 == 0 })
    row(
      "trigger_process_allocations", number("trigger_process_allocations"), nil,
      "0 (the same in the whole process)",
      number("trigger_process_allocations").map { $0 == 0 })
    row(
      "trigger_allocations_per_frame", number("trigger_allocations_per_frame"), nil,
      "reference: what a frame with triggers allocates on the game thread whatever their number", nil)
    row(
      "trigger_burst_allocations", number("trigger_burst_allocations"), nil,
      "reference: per trigger when frames run back to back (voices still fading cannot be reused yet)",
      nil)
    row(
      "trigger_paced_cpu_us", number("trigger_paced_cpu_us"), nil,
      "reference: game-thread CPU per trigger paced at 60 Hz (caches cold between frames)", nil)
    for channels in ["16", "64", "256", "1024"] {
      let foley = keyed("trigger_process_cpu_us_by_channels", channels)
      let c = keyed("raw_c_trigger_cpu_us_by_channels", channels)
      row(
        "trigger_process_cpu_us_by_channels[\(channels)]", foley,
        keyedMin("trigger_process_cpu_us_by_channels", channels),
        "≤ 1.0 (C: \(c.map { String(format: "%.3f", $0) } ?? "null"))", foley.map { $0 <= 1.0 })
    }
    let flat = ratio(
      keyed("trigger_process_cpu_us_by_channels", "1024"), keyed("trigger_process_cpu_us_by_channels", "16"))
    row("flatness 1024/16 channels", flat, nil, "≤ 1.2 (flat)", flat.map { $0 <= 1.2 })
    for nodes in ["100", "1000", "5000"] {
      row(
        "trigger_cpu_us_by_nodes[\(nodes)]", keyed("trigger_cpu_us_by_nodes", nodes), nil,
        nodes == "5000" ? "≤ 1.2 × with 100 nodes" : "",
        nodes == "5000"
          ? ratio(keyed("trigger_cpu_us_by_nodes", "5000"), keyed("trigger_cpu_us_by_nodes", "100")).map {
            $0 <= 1.2
          } : nil)
    }
    row(
      "mix_cpu_ratio_same_work", number("mix_cpu_ratio_same_work"), nil,
      "≤ 1.0 (64 voices, 0.5 volume, 9 pans, float32, vs C doing the same)",
      number("mix_cpu_ratio_same_work").map { $0 <= 1.0 })
    row("mix_cpu_ratio", number("mix_cpu_ratio"), nil, "reference: vs plain C (s16, no volume or pan)", nil)
    row(
      "idle_cpu_ratio", number("idle_cpu_ratio"), nil, "≤ 1.1 × raw SDL_mixer idle",
      number("idle_cpu_ratio").map { $0 <= 1.1 })
    let actions = number("actions_ns_per_node")
    let objects = number("objects_loop_ns_per_node")
    let flatLoop = number("baseline_loop_ns_per_node")
    row(
      "actions_ns_per_node", actions, nil, "≤ 1.0 × objects_loop_ns_per_node",
      ratio(actions, objects).map { $0 <= 1.0 })
    row("objects_loop_ns_per_node", objects, nil, "floor of this API (the same Node objects by hand)", nil)
    row(
      "baseline_loop_ns_per_node", flatLoop, nil, "floor of any API (flat array); goal beyond: actions ≤ 2 ×",
      ratio(actions, flatLoop).map { $0 <= 2 })
    // The action runtime's lines: against the same objects by hand, and against a flat loop.
    row(
      "actions ÷ objects loop", ratio(actions, objects), nil, "≤ 2",
      ratio(actions, objects).map { $0 <= 2 })
    row(
      "actions ÷ flat loop", ratio(actions, flatLoop), nil, "≤ 3 (the flat loop's reach)",
      ratio(actions, flatLoop).map { $0 <= 3 })
    let frame = number("frame_ms") ?? 1000.0 / 60
    let buffer = number("buffer_ms")
    row(
      "latency_from_run_ms_p99", number("latency_from_run_ms_p99"), nil,
      "≤ frame_ms + buffer_ms + 1 (waits for the next update)",
      number("latency_from_run_ms_p99").flatMap { l in buffer.map { l <= frame + $0 + 1 } })
    row(
      "latency_ms_p99", number("latency_ms_p99"), nil, "≤ buffer_ms + 1 (from the update that plays it)",
      number("latency_ms_p99").flatMap { l in buffer.map { l <= $0 + 1 } })
    row(
      "buffer_ms", buffer, nil, "device buffer (SDL's dummy driver sleeps 10 ms for a 10.67 ms buffer)", nil)
    row("trigger_us", number("trigger_us"), minimum("trigger_us"), "reference: game-thread wall time", nil)
    row(
      "trigger_end_to_end_us", number("trigger_end_to_end_us"), minimum("trigger_end_to_end_us"),
      "reference: wall time until served", nil)
    row("raw_c_trigger_us", number("raw_c_trigger_us"), nil, "reference: C wall time", nil)
    row("pygame_trigger_us", number("pygame_trigger_us"), nil, "baseline (null without pygame)", nil)
    row(
      "decodes_for_1000_plays", number("decodes_for_1000_plays"), nil, "= 1",
      number("decodes_for_1000_plays").map { $0 == 1 })
    row(
      "rss_growth_kib_1000_voices", number("rss_growth_kib_1000_voices"), nil, "≤ 256",
      number("rss_growth_kib_1000_voices").map { $0 <= 256 })
    row(
      "rss_growth_mib_1000_distinct_sounds", number("rss_growth_mib_1000_distinct_sounds"), nil,
      "≤ 64 + 16 (the cache limit, plus allocator slack)",
      number("rss_growth_mib_1000_distinct_sounds").map { $0 <= 80 })
    row(
      "cache_mib_1000_distinct_sounds", number("cache_mib_1000_distinct_sounds"), nil,
      "≤ 64 (soundCacheLimit)",
      number("cache_mib_1000_distinct_sounds").map { $0 <= 64 })
    row(
      "music_decode_cpu_percent_per_stream", number("music_decode_cpu_percent_per_stream"), nil,
      "% of a core per stream, 8 Vorbis streams at once (reported)", nil)
    row(
      "music_resample_cpu_percent_per_stream", number("music_resample_cpu_percent_per_stream"), nil,
      "% of a core per 44.1 kHz stereo stream resampled to 48 kHz (libsamplerate SINC_MEDIUM, keeps time), reported",
      nil)
    row(
      "music_resample_sdl_cpu_percent_per_stream", number("music_resample_sdl_cpu_percent_per_stream"), nil,
      "reference, same run: SDL 2's stream resampling alone (drifts 57 ppm: 11 frames by 4 s), reported", nil)
    row(
      "music_play_to_first_sample_ms", number("music_play_to_first_sample_ms"), nil,
      "wall ms, play → first frame mixed, the demo's 14 s Vorbis piece, not checked before (reported)", nil)
    row(
      "music_prepared_play_to_first_sample_ms", number("music_prepared_play_to_first_sample_ms"), nil,
      "≤ 42.7 (two 1,024-frame buffers at 48 kHz: well inside a beat at 120 bpm), after prepare",
      number("music_prepared_play_to_first_sample_ms").map { $0 <= 42.7 })
    row(
      "prepared_music_start_ms", number("prepared_music_start_ms"), nil,
      "≤ 21.3 (within one 1,024-frame buffer of being asked; the row above)",
      number("prepared_music_start_ms").map { $0 <= 21.3 })
    row(
      "first_sound_ms", number("first_sound_ms"), minimum("first_sound_ms"),
      "≤ 3 (wall ms: engine opening → first buffer carrying a sound, its decode included)",
      number("first_sound_ms").map { $0 <= 3 })
    row(
      "first_sound_open_ms / _decode_ms / _play_ms",
      number("first_sound_open_ms"), nil,
      "reference: the engine opening; then "
        + [number("first_sound_decode_ms"), number("first_sound_play_ms")]
        .map { $0.map { String(format: "%.3f", $0) } ?? "null" }.joined(separator: " decoding, ")
        + " playing to its first buffer", nil)
    row(
      "raw_c_first_sound_ms", number("raw_c_first_sound_ms"), nil,
      "reference (C: SDL_Init, Mix_OpenAudioDevice, Mix_LoadWAV, Mix_PlayChannel → its first post-mix)",
      nil)
    row(
      "music_underrun_frames_8_streams", number("music_underrun_frames_8_streams"), nil, "= 0",
      number("music_underrun_frames_8_streams").map { $0 == 0 })
    row(
      "music_rss_growth_kib_10_minutes", number("music_rss_growth_kib_10_minutes"), nil,
      "≤ 1024 (flat: minute 1 to minute 10 of one stream)",
      number("music_rss_growth_kib_10_minutes").map { $0 <= 1_024 })
    row(
      "load_isolated_ratio", number("load_isolated_ratio"), minimum("load_isolated_ratio"),
      "≤ 1.5 (500 sounds: decoding service ÷ in-process, wall time)",
      number("load_isolated_ratio").map { $0 <= 1.5 })
    row(
      "load_isolated_ratio_1gib", number("load_isolated_ratio_1gib"), minimum("load_isolated_ratio_1gib"),
      "≤ 1.5 (the same with 1 GiB resident)", number("load_isolated_ratio_1gib").map { $0 <= 1.5 })
    row(
      "load_fork_per_sound_ratio", number("load_fork_per_sound_ratio"), nil,
      "reference: a fork per sound (the old way), ÷ in-process", nil)
    row(
      "load_fork_per_sound_ratio_1gib", number("load_fork_per_sound_ratio_1gib"), nil,
      "reference: a fork per sound with 1 GiB resident", nil)
    let mix256 = number("mix_cpu_percent_256")
    let raw256 = number("raw_c_mix_cpu_percent_256")
    row(
      "mix_cpu_percent_256", mix256, minimum("mix_cpu_percent_256"),
      "≤ 1 (% of a core, 256 looping voices, 0.5 volume, 9 pans, float32)", mix256.map { $0 <= 1 })
    row(
      "mix_cpu_percent_256_portable", number("mix_cpu_percent_256_portable"),
      minimum("mix_cpu_percent_256_portable"),
      "reference: the same summed in Swift's 128-bit vectors, as on a CPU without AVX (null: this one has none)",
      nil)
    row(
      "raw_c_mix_cpu_percent_256", raw256, minimum("raw_c_mix_cpu_percent_256"), "baseline (C, the same)", nil
    )
    let idleFoley = number("idle_cpu_seconds").flatMap { i in number("idle_seconds").map { i / $0 * 100 } }
    let idleC = number("raw_idle_cpu_seconds").flatMap { i in number("idle_seconds").map { i / $0 * 100 } }
    row(
      "mix_cpu_percent_256 above idle", mix256.flatMap { m in idleFoley.map { m - $0 } }, nil,
      "reference: minus Foley's idle engine; C's: \(raw256.flatMap { r in idleC.map { String(format: "%.3f", r - $0) } } ?? "null")",
      nil)
    row(
      "effects_cpu_percent_64", number("effects_cpu_percent_64"), minimum("effects_cpu_percent_64"),
      "≤ 3 (64 voices with a low-pass and a reverb send, a sidechain compressor on their bus, minus the same 64 plain)",
      number("effects_cpu_percent_64").map { $0 <= 3 })
    row(
      "effects_and_rate_cpu_percent_64", number("effects_and_rate_cpu_percent_64"), nil,
      "reference: the same with a rate of 1.25 on every voice (libsamplerate's sinc)", nil)
    row(
      "night_range_cpu_percent", number("night_range_cpu_percent"), nil,
      "reference: the master's night range mode (a leveller before the limiter) under the same 64", nil)
    row(
      "tween_cpu_percent_64", number("tween_cpu_percent_64"), nil,
      "≤ 1 (% of a core: each of the 64 voices' volume under a tween every block, eased per sample, minus the 64 plain)",
      number("tween_cpu_percent_64").map { $0 <= 1 })
    row(
      "grammar_cpu_percent_64", number("grammar_cpu_percent_64"), nil,
      "≤ 1 (% of a core: the 64 voices each under a tween, an LFO and a parameter's curve, two snapshots blending on their bus, minus the 64 plain)",
      number("grammar_cpu_percent_64").map { $0 <= 1 })
    row(
      "resampler_alias_dbfs", number("resampler_alias_dbfs"), nil,
      "≤ -60 (10 kHz at rate 1.5: every other component)", number("resampler_alias_dbfs").map { $0 <= -60 })
    row(
      "offline_render_speed", number("offline_render_speed"), nil,
      "≥ 20 (seconds of audio per second: 60 s, 64 moving positional voices and music, offline)",
      number("offline_render_speed").map { $0 >= 20 })
    row(
      "soundmap_post_cpu_us", number("soundmap_post_cpu_us"), minimum("soundmap_post_cpu_us"),
      "≤ 2 (game-thread CPU per `scene.events.post` of a one-file event)",
      number("soundmap_post_cpu_us").map { $0 <= 2 })
    row(
      "soundmap_post_positional_cpu_us", number("soundmap_post_positional_cpu_us"),
      minimum("soundmap_post_positional_cpu_us"), "≤ 2 (the same, positional, from a node)",
      number("soundmap_post_positional_cpu_us").map { $0 <= 2 })
    row(
      "soundmap_post_reference_play_cpu_us", number("soundmap_post_reference_play_cpu_us"), nil,
      "reference: the `engine.play` a post ends in, same run", nil)
    row(
      "positional_update_us_256", number("positional_update_us_256"), nil,
      "≤ 25 (game-thread CPU per update: 256 looping AudioNodes, each moved every frame)",
      number("positional_update_us_256").map { $0 <= 25 })
    row(
      "space_update_us_256", number("space_update_us_256"), nil,
      "≤ 25 (the same 256 through `engine.space`: a voice each, moved and updated, no scene)",
      number("space_update_us_256").map { $0 <= 25 })
    row(
      "space_cpu_percent_256", number("space_cpu_percent_256"), nil,
      "reference: process CPU of the row before, % of a core (beside `positional_cpu_percent_256`)", nil)
    row(
      "space_audio_thread_allocations", number("space_audio_thread_allocations"), nil,
      "0 (allocations on the mixing thread while the space's 256 voices move)",
      number("space_audio_thread_allocations").map { $0 == 0 })
    let walled = number("positional_geometry_update_us_256")
    row(
      "positional_geometry_update_us_256", walled, nil,
      "≤ 50 above the row before (the same 256 among 1,000 wall segments and 20 doors, heard through them)",
      walled.flatMap { w in number("positional_update_us_256").map { w - $0 <= 50 } })
    row(
      "positional_geometry_every_update_us_256", number("positional_geometry_every_update_us_256"), nil,
      "reference: the same with `geometryUpdateSpread` 1 (every moving voice's walls walked every update)",
      nil)
    row(
      "positional_geometry_cpu_percent_256", number("positional_geometry_cpu_percent_256"), nil,
      "reference: process CPU of the geometry row, % of a core (the acoustics worker's walks in it)", nil)
    row(
      "positional_geometry_every_update_cpu_percent_256",
      number("positional_geometry_every_update_cpu_percent_256"), nil,
      "reference: the same with `geometryUpdateSpread` 1", nil)
    row(
      "frame_sound_share_us_median", number("frame_sound_share_us_median"), nil,
      "≤ 500 (a busy game's frame, game-thread CPU with sound minus without, median; see below)",
      number("frame_sound_share_us_median").map { $0 <= 500 })
    row(
      "frame_sound_share_us_p99", number("frame_sound_share_us_p99"), nil,
      "≤ 1,000 (the same, 99th percentile)", number("frame_sound_share_us_p99").map { $0 <= 1_000 })
    row(
      "frame_us_median", number("frame_us_median"), nil,
      "reference: the whole frame with sound, median (`frame_us_p99` the 99th percentile)", nil)
    row(
      "frame_silent_us_median", number("frame_silent_us_median"), nil,
      "reference: the same frame with sound disabled, median", nil)
    row(
      "frame_cpu_percent", number("frame_cpu_percent"), nil,
      "reference: process CPU with sound, % of a core (`frame_silent_cpu_percent` without)", nil)
    // Scale curves: the same work at 1, 4 and 16 times the load (reported, no line).
    for scale in ["1", "4", "16"] {
      let times = scale == "1" ? "" : " × \(scale)"
      row(
        "scale_trigger_cpu_us[\(scale)]", keyed("scale_trigger_cpu_us", scale), nil,
        "reference: game-thread CPU per trigger, \(Int(scale)! * 100) nodes triggering a frame (flat is ideal)",
        nil)
      row(
        "scale_positional_update_us[\(scale)]", keyed("scale_positional_update_us", scale), nil,
        "reference: game-thread CPU per update, \(Int(scale)! * 256) moving positional voices (1,024 channels at most)",
        nil)
      row(
        "scale_frame_sound_share_us_median[\(scale)]", keyed("scale_frame_sound_share_us_median", scale), nil,
        "reference: the whole frame's sound share, median, the busy game\(times)"
          + " (`scale_frame_sound_share_us_p99` the 99th percentile)", nil)
    }
    row(
      "raw_c_positional_update_us_256", number("raw_c_positional_update_us_256"), nil,
      "reference (C: Mix_SetPosition on 256 channels each frame, same circles)", nil)
    row(
      "positional_cpu_percent_256", number("positional_cpu_percent_256"), nil,
      "≤ 3 (process CPU, % of a core)", number("positional_cpu_percent_256").map { $0 <= 3 })
    row(
      "positional_audio_thread_allocations", number("positional_audio_thread_allocations"), nil,
      "= 0 (inside the render while it follows the 256 moving voices' placements)",
      number("positional_audio_thread_allocations").map { $0 == 0 })
    row(
      "raw_c_positional_cpu_percent_256", number("raw_c_positional_cpu_percent_256"), nil,
      "reference (C, process CPU, % of a core)", nil)
    row(
      "virtual_emitters_cpu_ratio", number("virtual_emitters_cpu_ratio"), nil,
      "≤ 1.1 (5,000 looping positional emitters, 32 heard, vs the same scene whose 4,968 others are silent nodes)",
      number("virtual_emitters_cpu_ratio").map { $0 <= 1.1 })
    row(
      "virtual_emitters_cpu_ratio_same_objects", number("virtual_emitters_cpu_ratio_same_objects"), nil,
      "reference: vs the same scene whose 4,968 others are the same AudioNodes, not playing", nil)
    row(
      "virtual_emitters_cpu_ratio_32_alone", number("virtual_emitters_cpu_ratio_32_alone"), nil,
      "reference: the same vs the 32 emitters alone in an empty scene (the scene's own 4,968 nodes included)",
      nil)
    row(
      "virtual_emitters_cpu_ratio_walking", number("virtual_emitters_cpu_ratio_walking"), nil,
      "the same with the listener walking (3 points an update) vs the silent-node scene walking: ≤ 1.1",
      number("virtual_emitters_cpu_ratio_walking").map { $0 <= 1.1 })
    row(
      "virtual_emitters_cpu_percent", number("virtual_emitters_cpu_percent"), nil,
      "% of a core, the field (silent nodes: \(number("silent_nodes_cpu_percent").map { String(format: "%.3f", $0) } ?? "null"))",
      nil)
    row(
      "audio_thread_allocations", number("audio_thread_allocations"), nil,
      "= 0 (inside the render, all of the shaping group's runs)",
      number("audio_thread_allocations").map { $0 == 0 })
    row(
      "inspector_cpu_percent_256", number("inspector_cpu_percent_256"), nil,
      "≤ 1 (% of a core: 256 voices on four buses, 10 snapshots a second, minus the same not inspected)",
      number("inspector_cpu_percent_256").map { $0 <= 1 })
    row(
      "inspector_cpu_percent_256_60hz", number("inspector_cpu_percent_256_60hz"), nil,
      "reference: 60 snapshots a second (a panel redrawn every frame)", nil)
    row(
      "inspector_audio_thread_allocations", number("inspector_audio_thread_allocations"), nil,
      "= 0 (inside the render while the buses are copied for the inspector)",
      number("inspector_audio_thread_allocations").map { $0 == 0 })
    for events in ["1000", "3000", "60000"] {
      let drain = keyed("inspector_map_json_longest_drain_ms_by_events", events)
      row(
        "inspector_map_json_ms_by_events[\(events)]", keyed("inspector_map_json_ms_by_events", events), nil,
        "reference: wall ms of GET /map.json, every entry listed (median of three)", nil)
      row(
        "inspector_map_json_longest_drain_ms_by_events[\(events)]", drain, nil,
        "≤ 2 (game-thread CPU ms of its longest mailbox drain while the map was listed)",
        drain.map { $0 <= 2 })
      row(
        "inspector_map_json_longest_drain_wall_ms_by_events[\(events)]",
        keyed("inspector_map_json_longest_drain_wall_ms_by_events", events), nil,
        "reference: the same drain's wall ms (the server's threads share the two cores)", nil)
    }
  }
}
