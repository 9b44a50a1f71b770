/// The inspector's one page: meters per bus (with the page's volume and mute controls), the mix
/// snapshots (each one's intensity, applied and released from the page) and the game parameters,
/// the spectrum, the voice list, the music, the event log (what each play was given) and the sound
/// map's reloads, drawn from `/snapshot.json` once and
/// then from the reports the WebSocket streams (or, where a WebSocket cannot open, from
/// `/snapshot.json` polled).
///
/// With a sound map, an editor: pick an event, change its file, level, pitch, limits, bus and
/// caption with controls that know their ranges (or its JSON), apply it to the running game,
/// audition it with parameters, and save the map (when the game allows it).
///
/// For scripted checks (a headless browser), `#set=BUS:VOLUME` in the address sets that bus's
/// volume once the first report has drawn it, through the same handler a fader uses;
/// `#apply=SNAPSHOT` clicks that snapshot's apply button once it is drawn (`data-applied` on the
/// body says it was); and
/// `#edit=EVENT:DB` sets that event's level to DB, applies it, auditions it and saves the map
/// (the outcome lands in `data-edited` on the body).
enum InspectorPage {
  static let html = layout.replacingOccurrences(of: "/*EDITOR*/\n", with: editorScript)

  private static let layout = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <title>Foley inspector</title>
    <style>
    body { font: 13px/1.4 system-ui, sans-serif; margin: 0; background: #15171c; color: #dde; }
    header { padding: 8px 14px; background: #22252d; display: flex; gap: 18px; align-items: baseline; }
    header h1 { font-size: 15px; margin: 0; }
    main { display: grid; grid-template-columns: minmax(420px, 1fr) minmax(380px, 1fr); gap: 12px; padding: 12px; }
    section { background: #1d2027; border-radius: 6px; padding: 8px 10px; }
    h2 { font-size: 13px; margin: 0 0 6px; color: #9ab; text-transform: uppercase; letter-spacing: .05em; }
    table { border-collapse: collapse; width: 100%; }
    td, th { padding: 2px 6px; text-align: left; white-space: nowrap; }
    th { color: #889; font-weight: normal; }
    tr:nth-child(even) td { background: #20242c; }
    .bus { display: grid; grid-template-columns: 90px 1fr 70px 150px 52px 48px; gap: 8px; align-items: center; margin: 3px 0; }
    #editor label { display: inline-block; margin: 2px 10px 2px 0; } #editor input[type=number] { width: 64px; }
    #entryText { width: 100%; height: 90px; background: #0d0f13; color: #dde; font: 12px monospace; }
    #editStatus { white-space: pre-wrap; } .refused { color: #e88; } .done { color: #8c8; }
    .meter { position: relative; height: 14px; background: #0d0f13; border-radius: 2px; overflow: hidden; }
    .meter div { position: absolute; left: 0; height: 7px; background: linear-gradient(90deg, #3c6 70%, #dc3 88%, #e44); }
    .meter .r { top: 7px; }
    .num { font-variant-numeric: tabular-nums; color: #aab; font-size: 12px; }
    .state-virtual { color: #778; } .state-held, .state-paused { color: #db8; } .state-releasing { color: #977; }
    .muted { opacity: .5; }
    .reload { margin: 2px 0; white-space: pre-wrap; } .reload-loaded { color: #8c8; } .reload-failed { color: #e88; }
    #status.live { color: #6d6; } #status.down { color: #e66; }
    input[type=range] { width: 110px; }
    </style>
    </head>
    <body>
    <header><h1>Foley inspector</h1><span id="status">connecting…</span><span id="clock" class="num"></span>
    <span id="limiter" class="num"></span><span id="census" class="num"></span></header>
    <main>
    <section><h2>Buses</h2><div id="buses"></div>
    <h2 style="margin-top:10px">Mix snapshots</h2><div id="snapshots" class="num">—</div>
    <h2 style="margin-top:10px">Game parameters</h2><div id="parameters" class="num">—</div></section>
    <section><h2>Spectrum <span id="spectrumBus"></span></h2><canvas id="spectrum" width="520" height="170"></canvas></section>
    <section><h2>Voices <span id="voiceCount" class="num"></span></h2>
    <table><thead><tr><th>id</th><th>sound</th><th>bus</th><th>state</th><th>gain dB</th><th>pan</th><th>rate</th><th>position</th><th>walls dB</th><th>cutoff</th><th>path</th><th>listener</th></tr></thead>
    <tbody id="voices"></tbody></table></section>
    <section><h2>Music</h2><div id="music" class="num">—</div>
    <h2 style="margin-top:10px">Events</h2>
    <form id="postForm"><input id="eventName" placeholder="event name [key=value, …]" size="30"> <button>post</button> <span id="reply" class="num"></span></form>
    <table><tbody id="events"></tbody></table>
    <h2 style="margin-top:10px">Sound map reloads</h2>
    <div id="reloads" class="num">—</div></section>
    <section id="editor" style="grid-column: 1 / -1" hidden><h2>Sound map <span id="mapFile"></span> <span id="mapVersion" class="num"></span></h2>
    <div><label>event <select id="eventPick"></select></label>
    <label>file <select id="fileField"></select></label>
    <label>level <input id="volumeField" type="range" min="-60" max="0" step="0.5"> <span id="volumeShown" class="num"></span> dB</label>
    <label>pitch <input id="pitchLow" type="number" min="-24" max="24" step="0.25"> … <input id="pitchHigh" type="number" min="-24" max="24" step="0.25"> st</label>
    <label>cooldown <input id="cooldownField" type="number" min="0" max="60" step="0.01"> s</label>
    <label>max voices <input id="maxField" type="number" min="0" max="256" step="1"></label>
    <label>bus <select id="busField"></select></label>
    <label><input id="positionalField" type="checkbox"> positional</label>
    <label>caption <input id="captionField" size="18"></label></div>
    <textarea id="entryText" spellcheck="false"></textarea>
    <div><button id="applyButton">apply</button>
    <label>parameters <input id="auditionParameters" placeholder="surface=player, speed=3" size="26"></label>
    <label>at <input id="auditionPosition" placeholder="x, y" size="10"></label>
    <button id="auditionButton">audition</button> <button id="mixButton">bus levels into the map</button> <button id="saveButton">save map</button>
    <span id="conflict" hidden><button id="overwriteButton">save over the file on disk</button> <button id="reloadButton">take the file on disk</button></span></div>
    <div id="gameControls"></div>
    <div id="editStatus" class="num"></div></section>
    </main>
    <script>
    "use strict";
    const token = new URLSearchParams(location.search).get("token") || "";
    const q = "token=" + encodeURIComponent(token);
    const $ = (id) => document.getElementById(id);
    const text = (value) => document.createTextNode(String(value));
    let socket = null, controls = false, pendingSet = null, pendingApply = null;
    const hash = location.hash.match(/^#set=([^:]+):([0-9.]+)$/);
    if (hash) pendingSet = { bus: decodeURIComponent(hash[1]), volume: Number(hash[2]) };
    const apply = location.hash.match(/^#apply=(.+)$/);
    if (apply) pendingApply = decodeURIComponent(apply[1]);

    // One command over plain HTTP, its reply shown; whether it was carried out.
    async function postCommand(command) {
      const response = await fetch("/control?" + q, { method: "POST", body: JSON.stringify(command) });
      $("reply").textContent = (await response.text()).trim();
      return response.ok;
    }
    function send(command) {
      if (socket && socket.readyState === 1) { socket.send(JSON.stringify(command)); return; }
      postCommand(command);
    }
    // Faders in dB, −60 (off) to 0; the bus's volume is the gain they stand for.
    function fromDecibels(db) { return db <= -60 ? 0 : Math.min(1, Math.pow(10, db / 20)); }
    function toDecibels(volume) { return volume <= 0.001 ? -60 : Math.max(-60, 20 * Math.log10(volume)); }
    function setVolume(bus, volume) {
      const row = $("buses").querySelector(`[data-bus="${CSS.escape(bus)}"]`);
      if (row) row.querySelector("input[type=range]").dataset.touched = Date.now();
      send({ type: "volume", bus, volume });
    }
    function width(db) { return Math.max(0, Math.min(100, (db + 60) / 60 * 100)) + "%"; }
    function fmt(value, digits) { return value === null || value === undefined ? "—" : Number(value).toFixed(digits); }

    function drawBuses(buses) {
      const box = $("buses");
      for (const bus of buses) {
        let row = box.querySelector(`[data-bus="${CSS.escape(bus.name)}"]`);
        if (!row) {
          row = document.createElement("div");
          row.className = "bus"; row.dataset.bus = bus.name;
          row.innerHTML = `<span class="name"></span><div class="meter"><div class="l"></div><div class="r"></div></div>
            <span class="lufs num"></span><span><input type="range" min="-60" max="0" step="0.1"> <span class="vol num"></span></span>
            <label><input type="checkbox" class="mute"> mute</label><label><input type="checkbox" class="solo"> solo</label>`;
          row.querySelector(".name").appendChild(text(bus.name));
          const slider = row.querySelector("input[type=range]");
          slider.addEventListener("input", () => setVolume(bus.name, fromDecibels(Number(slider.value))));
          row.querySelector(".mute").addEventListener("change", (e) => send({ type: "mute", bus: bus.name, muted: e.target.checked }));
          const solo = row.querySelector(".solo");
          if (bus.name === "master") solo.parentElement.style.visibility = "hidden";
          solo.addEventListener("change", (e) => send({ type: "solo", bus: bus.name, soloed: e.target.checked }));
          box.appendChild(row);
        }
        const peaks = bus.peakDecibels;
        row.querySelector(".l").style.width = width(peaks[0]);
        row.querySelector(".r").style.width = width(peaks[peaks.length > 1 ? 1 : 0]);
        row.title = `peak ${peaks.map(p => fmt(p, 1)).join(" / ")} dBFS, rms ${bus.rmsDecibels.map(p => fmt(p, 1)).join(" / ")} dBFS, ` +
          `M ${fmt(bus.momentaryLoudness, 1)} LUFS, S ${fmt(bus.shortTermLoudness, 1)} LUFS` +
          (bus.effects.length ? ", effects: " + bus.effects.map(e => e.kind).join(" → ") : "");
        const slider = row.querySelector("input[type=range]");
        slider.disabled = !controls; row.querySelector(".mute").disabled = !controls; row.querySelector(".solo").disabled = !controls;
        if (!slider.dataset.touched || Date.now() - slider.dataset.touched > 1000) slider.value = toDecibels(bus.volume);
        row.querySelector(".vol").textContent = bus.volume > 0 ? fmt(20 * Math.log10(bus.volume), 1) + " dB" : "off";
        if (bus.isSoloed !== undefined) row.querySelector(".solo").checked = bus.isSoloed;
        const lufs = bus.momentaryLoudness;
        row.querySelector(".lufs").textContent = lufs === undefined || lufs === null ? "" : lufs <= -120 ? "silent" : fmt(lufs, 1) + " LUFS";
        row.querySelector(".mute").checked = bus.isMuted;
        row.classList.toggle("muted", bus.isMuted);
      }
      if (pendingSet) {
        const row = box.querySelector(`[data-bus="${CSS.escape(pendingSet.bus)}"]`);
        if (row && controls) {
          row.querySelector("input[type=range]").value = toDecibels(pendingSet.volume);
          setVolume(pendingSet.bus, pendingSet.volume);
          document.body.dataset.set = pendingSet.bus + ":" + pendingSet.volume;
          pendingSet = null;
        }
      }
    }

    function drawSpectrum(spectrum) {
      const canvas = $("spectrum"), g = canvas.getContext("2d");
      g.fillStyle = "#0d0f13"; g.fillRect(0, 0, canvas.width, canvas.height);
      if (!spectrum) return;
      $("spectrumBus").textContent = "(" + spectrum.bus + ")";
      const n = spectrum.levels.length, w = canvas.width / n;
      spectrum.levels.forEach((db, i) => {
        const h = Math.max(0, (db + 90) / 90) * canvas.height;
        g.fillStyle = `hsl(${200 - i / n * 160}, 70%, 55%)`;
        g.fillRect(i * w + 1, canvas.height - h, w - 2, h);
      });
      g.fillStyle = "#667"; g.font = "10px sans-serif";
      for (const hz of [100, 1000, 10000]) {
        const i = spectrum.frequencies.findIndex(f => f >= hz);
        if (i >= 0) g.fillText(hz >= 1000 ? hz / 1000 + "k" : String(hz), i * w, 10);
      }
    }

    function drawVoices(voices) {
      $("voiceCount").textContent = voices.length;
      const body = document.createElement("tbody"); body.id = "voices";
      // Heard first, then held and paused, then virtual; by id within each.
      const rank = { playing: 0, releasing: 1, held: 2, paused: 3, waiting: 4, virtual: 5 };
      const sorted = voices.slice().sort((a, b) => (rank[a.state] - rank[b.state]) || (a.id - b.id));
      for (const voice of sorted.slice(0, 300)) {
        const row = body.insertRow();
        row.className = "voice state-" + voice.state;
        const heard = voice.acoustics;  // how the scene's walls and doors shape it, if they do
        for (const value of [voice.id, voice.sound, voice.bus, voice.state, fmt(voice.gainDecibels, 1), fmt(voice.pan, 2), fmt(voice.rate, 2), fmt(voice.position, 2),
                             heard ? fmt(heard.occlusionDecibels, 1) : "", heard ? fmt(heard.cutoff, 0) : "", heard ? heard.path : "",
                             voice.listener == null ? "" : String(voice.listener + 1)]) {
          row.insertCell().appendChild(text(value));
        }
      }
      $("voices").replaceWith(body);
    }

    // The snapshots in the order they combine, each with its intensity and, for a designer,
    // apply and release (over half a second).
    function drawSnapshots(snapshots) {
      const box = document.createElement("div"); box.id = "snapshots"; box.className = "num";
      if (!snapshots || !snapshots.length) box.textContent = "—";
      for (const snapshot of snapshots || []) {
        const line = document.createElement("div");
        line.className = "snapshot" + (snapshot.intensity > 0 ? " snapshot-active" : "");
        line.dataset.snapshot = snapshot.name;
        line.appendChild(text(`${snapshot.name} ${snapshot.mode} p${snapshot.priority} ` +
          `${snapshot.intensity > 0 ? "at " + fmt(snapshot.intensity, 2) : "released"} (${snapshot.buses.join(", ")}) `));
        for (const [label, intensity] of [["apply", 1], ["release", 0]]) {
          const button = document.createElement("button");
          button.textContent = label; button.disabled = !controls;
          button.addEventListener("click", () => send({ type: "snapshot", name: snapshot.name, intensity: intensity, tween: 0.5 }));
          line.appendChild(button);
        }
        box.appendChild(line);
        if (pendingApply === snapshot.name && controls) {
          // A scripted check: the snapshot's own apply button, clicked once.
          line.querySelector("button").click();
          document.body.dataset.applied = snapshot.name;
          pendingApply = null;
        }
      }
      $("snapshots").replaceWith(box);
    }

    function drawParameters(parameters) {
      const names = Object.keys(parameters || {}).sort();
      $("parameters").textContent = names.length ? names.map(n => `${n} ${fmt(parameters[n], 3)}`).join("  ") : "—";
    }

    function drawEvents(events) {
      const body = document.createElement("tbody"); body.id = "events";
      for (const event of events.slice().reverse().slice(0, 30)) {
        const row = body.insertRow(); row.className = "event";
        row.insertCell().appendChild(text(fmt(event.time, 2)));
        row.insertCell().appendChild(text(event.name));
        // What each sound was given: file, gain and pitch (and its delay), or why nothing played.
        row.insertCell().appendChild(text(event.outcome === "played" ? event.sounds.map(s =>
          `${s.file} ${fmt(s.gainDecibels, 1)} dB ${s.semitones >= 0 ? "+" : ""}${fmt(s.semitones, 2)} st` +
          (s.delay > 0 ? ` +${fmt(s.delay, 3)} s` : "")).join(", ") : event.outcome));
        row.insertCell().appendChild(text(event.position ? `at ${fmt(event.position[0], 0)}, ${fmt(event.position[1], 0)}` : ""));
      }
      $("events").replaceWith(body);
    }

    // Every reload of the sound map's file, newest first: what changed, or every error with its
    // JSON path (the previous map plays on).
    function drawReloads(reloads) {
      const box = document.createElement("div"); box.id = "reloads"; box.className = "num";
      if (!reloads || !reloads.length) box.textContent = "—";
      for (const reload of (reloads || []).slice().reverse()) {
        const line = document.createElement("div");
        line.className = "reload reload-" + reload.outcome;
        const when = new Date(reload.time * 1000).toLocaleTimeString();
        const changes = [["added", reload.added], ["removed", reload.removed], ["changed", reload.changed]]
          .filter(([, names]) => names.length).map(([what, names]) => what + " " + names.join(", "));
        line.appendChild(text(reload.outcome === "loaded"
          ? `${when} ${reload.file} ${reload.origin === "edit" ? "edited" : "reloaded"}: ${changes.length ? changes.join("; ") : "no event changed"}` +
            (reload.errors.length ? "; " + reload.errors.join("; ") : "")
          : `${when} ${reload.file} not reloaded, the previous map plays on:\n  ${reload.errors.join("\n  ")}`));
        box.appendChild(line);
      }
      $("reloads").replaceWith(box);
    }

    function draw(report) {
      if (report.ok !== undefined || report.error !== undefined) { $("reply").textContent = report.ok || report.error; return; }
      controls = report.controlsEnabled;
      const audio = report.audio;
      $("clock").textContent = fmt(audio.time, 2) + " s";
      $("limiter").textContent = "limiter " + fmt(audio.limiter.gainReductionDecibels, 1) + " dB";
      const c = audio.census;
      $("census").textContent = `${c.audible} playing, ${c.virtual} virtual, ${c.pausedBySession} held`;
      drawBuses(audio.buses); drawSpectrum(audio.spectrum); drawVoices(audio.voices); drawEvents(report.events);
      drawReloads(report.reloads); drawSnapshots(audio.snapshots); drawParameters(audio.parameters);
      const m = report.music;
      $("music").textContent = m && m.track ? `${m.track} ${fmt(m.time, 1)} / ${fmt(m.duration, 1)} s` +
        (m.musicalTime ? ` bar ${m.musicalTime}` : "") + (m.isPlaying ? "" : " (stopped)") : "—";
      $("postForm").querySelector("button").disabled = !controls;
      document.body.dataset.frame = audio.frame;
    }

    function poll() {
      fetch("/snapshot.json?" + q).then(r => r.json()).then(report => {
        $("status").textContent = "live (polling)"; $("status").className = "live"; draw(report);
      }).catch(() => { $("status").textContent = "disconnected"; $("status").className = "down"; })
        .finally(() => setTimeout(poll, 250));
    }

    function connect() {
      let opened = false;
      try {
        socket = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/stream?" + q);
      } catch (e) { poll(); return; }
      socket.onopen = () => { opened = true; $("status").textContent = "live"; $("status").className = "live"; };
      socket.onmessage = (message) => draw(JSON.parse(message.data));
      socket.onclose = () => { socket = null; if (opened) { $("status").textContent = "disconnected"; $("status").className = "down"; setTimeout(connect, 1000); } else poll(); };
      setTimeout(() => { if (!opened && socket) { socket.onclose = null; socket.close(); socket = null; poll(); } }, 1500);
    }

    // "surface=player, speed=3, hard=true": numbers and booleans as such, the rest as text.
    function parseParameters(text) {
      const parameters = {};
      for (const part of text.split(",").map(p => p.trim()).filter(p => p)) {
        const at = part.indexOf("="); if (at <= 0) continue;
        const key = part.slice(0, at).trim(), raw = part.slice(at + 1).trim();
        parameters[key] = raw === "true" ? true : raw === "false" ? false : raw !== "" && !isNaN(Number(raw)) ? Number(raw) : raw;
      }
      return parameters;
    }
    $("postForm").addEventListener("submit", (e) => {
      e.preventDefault();
      const [name, ...rest] = $("eventName").value.trim().split(/\s+/);
      if (name) send({ type: "post", event: name, parameters: parseParameters(rest.join(" ")) });
    });
    /*EDITOR*/
    // The first report over plain HTTP (drawn at once, and something a headless browser's
    // virtual time waits for), then the live stream.
    fetch("/snapshot.json?" + q).then(r => r.json()).then(draw).catch(() => {}).finally(connect);
    loadMap().then(loaded => loaded && scriptedEdit()).catch((e) => editStatus(String(e), false));
    </script>
    </body>
    </html>
    """#
}
