extension InspectorPage {
  /// The page's sound map editor: the entry's JSON box and the controls that rewrite its fields,
  /// apply, audition, save (with the choice a conflict leaves), and the scripted `#edit=` steps.
  static let editorScript = #"""
    // The sound map's editor. The JSON box is the entry being edited; each control rewrites its
    // field there, so an entry with more than the controls know (containers, switches) keeps it.
    let map = null, editing = null, pendingEdit = null;
    const editHash = location.hash.match(/^#edit=([^:]+):(-?[0-9.]+)$/);
    if (editHash) pendingEdit = { event: decodeURIComponent(editHash[1]), db: Number(editHash[2]) };

    function editStatus(message, ok) { $("editStatus").textContent = message; $("editStatus").className = "num " + (ok ? "done" : "refused"); }

    async function loadMap(select) {
      const response = await fetch("/map.json?" + q);
      if (!response.ok) return false;
      map = await response.json();
      $("editor").hidden = false;
      $("mapFile").textContent = map.file || "";
      $("mapVersion").textContent = "version " + map.version + (map.hasUnsavedEdits ? ", unsaved edits" : "");
      const names = Object.keys(map.events).sort();
      $("eventPick").replaceChildren(...names.map(n => new Option(n, n)));
      $("fileField").replaceChildren(new Option("(as the JSON says)", ""), ...map.files.map(f => new Option(f, f)));
      $("busField").replaceChildren(new Option("(effects)", ""), ...map.buses.filter(b => b !== "master").map(b => new Option(b, b)));
      if (select && names.includes(select)) $("eventPick").value = select;
      for (const id of ["applyButton", "auditionButton", "reloadButton", "mixButton"]) $(id).disabled = !map.editingAllowed;
      drawGameControls();
      for (const id of ["saveButton", "overwriteButton"]) $(id).disabled = !map.savingAllowed;
      showEntry();
      return true;
    }

    function showEntry() {
      const name = $("eventPick").value;
      if (!name) return;
      let entry = {};
      try { entry = JSON.parse(map.events[name]); } catch (e) {}
      editing = { name };
      $("entryText").value = JSON.stringify(entry, null, 2);
      const top = (value) => value === undefined ? 0 : Array.isArray(value) ? value[1] : value;
      const bottom = (value) => value === undefined ? 0 : Array.isArray(value) ? value[0] : value;
      $("volumeField").value = top(entry.volumeDb); $("volumeShown").textContent = fmt(top(entry.volumeDb), 1);
      $("pitchLow").value = bottom(entry.pitchSemitones); $("pitchHigh").value = top(entry.pitchSemitones);
      $("cooldownField").value = entry.cooldown ?? 0; $("maxField").value = entry.maxInstances ?? 0;
      $("busField").value = entry.category ?? ""; $("positionalField").checked = !!entry.positional;
      $("captionField").value = typeof entry.caption === "string" ? entry.caption : "";
      $("fileField").value = typeof entry.play === "string" ? entry.play : "";
      $("fileField").disabled = typeof entry.play !== "string";
    }

    function setField(change) {
      let entry;
      try { entry = JSON.parse($("entryText").value); } catch (e) { editStatus("the entry is not JSON: " + e.message, false); return; }
      change(entry);
      $("entryText").value = JSON.stringify(entry, null, 2);
    }
    const optional = (entry, key, value, keep) => { if (keep) entry[key] = value; else delete entry[key]; };
    $("eventPick").addEventListener("change", showEntry);
    $("volumeField").addEventListener("input", () => {
      const db = Number($("volumeField").value);
      $("volumeShown").textContent = fmt(db, 1);
      // A range keeps its spread below the top the fader moves.
      setField(e => { const spread = Array.isArray(e.volumeDb) ? e.volumeDb[1] - e.volumeDb[0] : 0; e.volumeDb = spread ? [db - spread, db] : db; });
    });
    for (const id of ["pitchLow", "pitchHigh"]) $(id).addEventListener("input", () => setField(e => {
      const low = Number($("pitchLow").value), high = Number($("pitchHigh").value);
      optional(e, "pitchSemitones", low === high ? low : [Math.min(low, high), Math.max(low, high)], low !== 0 || high !== 0);
    }));
    $("cooldownField").addEventListener("input", () => setField(e => optional(e, "cooldown", Number($("cooldownField").value), Number($("cooldownField").value) > 0)));
    $("maxField").addEventListener("input", () => setField(e => optional(e, "maxInstances", Number($("maxField").value), Number($("maxField").value) > 0)));
    $("busField").addEventListener("change", () => setField(e => optional(e, "category", $("busField").value, $("busField").value !== "")));
    $("positionalField").addEventListener("change", () => setField(e => optional(e, "positional", true, $("positionalField").checked)));
    $("captionField").addEventListener("input", () => setField(e => optional(e, "caption", $("captionField").value, $("captionField").value !== "")));
    $("fileField").addEventListener("change", () => setField(e => { if ($("fileField").value) e.play = $("fileField").value; }));

    async function applyEntry() {
      const name = editing.name;
      const response = await fetch(`/map/event?${q}&name=${encodeURIComponent(name)}&version=${map.version}`, { method: "POST", body: $("entryText").value });
      const reply = await response.json();
      if (response.ok) {
        editStatus(`${name} applied: the game plays it now (version ${reply.version}, not saved yet)`, true);
        await loadMap(name);
        return true;
      }
      if (response.status === 409) {
        // The designer chooses: apply again to put this entry over the newer map.
        map.version = reply.version;
        editStatus(reply.error + "; apply again to put this entry over it, or pick the event again to see the map's", false);
      } else {
        editStatus(reply.error + (reply.errors ? ":\n  " + reply.errors.join("\n  ") : ""), false);
      }
      return false;
    }

    async function audition(name) {
      // A position ("x, y"), where in the scene a positional event is heard from.
      const at = $("auditionPosition").value.split(",").map(v => v.trim()).filter(v => v !== "").map(Number);
      const command = { type: "post", event: name, parameters: parseParameters($("auditionParameters").value) };
      if (at.length === 2 && at.every(Number.isFinite)) command.position = at;
      return postCommand(command);
    }

    async function saveMap(overwrite) {
      const response = await fetch(`/map/save?${q}${overwrite ? "&overwrite=1" : ""}`, { method: "POST" });
      const reply = await response.json();
      $("conflict").hidden = response.status !== 409;
      editStatus(response.ok ? `saved ${reply.saved} (the previous file is ${reply.saved}.bak)`
        : response.status === 409 ? reply.error + ": save over it, or take the file on disk (your edits go)" : reply.error, response.ok);
      if (response.ok) await loadMap(editing && editing.name);
      return response.ok;
    }

    async function takeFileOnDisk() {
      const response = await fetch("/map/reload?" + q, { method: "POST" });
      const reply = await response.json();
      $("conflict").hidden = response.ok;
      editStatus(response.ok ? `read ${reply.reloaded} again; the edits made here are gone` : reply.error + (reply.errors ? ":\n  " + reply.errors.join("\n  ") : ""), response.ok);
      await loadMap(editing && editing.name);
    }

    // The game's side, as the map knows it: the music's state (a switch), the intensity
    // parameters (faders, 0…1), and each switch parameter's values, which fill the audition's.
    function drawGameControls() {
      const box = document.createElement("div"); box.id = "gameControls";
      const post = (event, parameters) => postCommand({ type: "post", event, parameters });
      if (map.musicStates.length) {
        const pick = document.createElement("select"); pick.id = "musicState";
        pick.replaceChildren(new Option("—", ""), ...map.musicStates.map(n => new Option(n, n)));
        pick.value = map.musicState || "";
        pick.addEventListener("change", () => pick.value && post("music.state", { state: pick.value }));
        const label = document.createElement("label"); label.append(text("music state "), pick); box.append(label);
      }
      for (const [name, value] of Object.entries(map.intensities).sort()) {
        const fader = document.createElement("input"); Object.assign(fader, { type: "range", min: 0, max: 1, step: 0.01, value });
        fader.dataset.parameter = name;
        fader.addEventListener("input", () => post("music.intensity", { [name]: Number(fader.value) }));
        const label = document.createElement("label"); label.append(text(name + " "), fader); box.append(label);
      }
      for (const [name, values] of Object.entries(map.switches).sort()) {
        const pick = document.createElement("select"); pick.dataset.parameter = name;
        pick.replaceChildren(new Option("—", ""), ...values.map(v => new Option(v, v)));
        pick.addEventListener("change", () => {
          const given = parseParameters($("auditionParameters").value);
          if (pick.value) given[name] = pick.value; else delete given[name];
          $("auditionParameters").value = Object.entries(given).map(([k, v]) => k + "=" + v).join(", ");
        });
        const label = document.createElement("label"); label.append(text(name + " "), pick); box.append(label);
      }
      for (const control of box.querySelectorAll("input, select")) control.disabled = !map.editingAllowed;
      $("gameControls").replaceWith(box);
    }

    // The buses' levels as the faders have them, into the map's mix section (saved with the map).
    async function storeBusLevels() {
      const levels = {};
      for (const row of $("buses").querySelectorAll("[data-bus]")) {
        if (row.dataset.bus === "master" || row.dataset.bus === "reverb") continue;
        levels[row.dataset.bus] = Number(row.querySelector("input[type=range]").value);
      }
      const response = await fetch(`/map/mix?${q}&version=${map.version}`, { method: "POST", body: JSON.stringify(levels) });
      const reply = await response.json();
      editStatus(response.ok ? `bus levels in the map's mix (version ${reply.version}, not saved yet)`
        : reply.error + (reply.errors ? ":\n  " + reply.errors.join("\n  ") : ""), response.ok);
      if (response.ok) await loadMap(editing && editing.name);
      return response.ok;
    }

    $("mixButton").addEventListener("click", storeBusLevels);
    $("applyButton").addEventListener("click", applyEntry);
    $("auditionButton").addEventListener("click", () => audition(editing.name));
    $("saveButton").addEventListener("click", () => saveMap(false));
    $("overwriteButton").addEventListener("click", () => saveMap(true));
    $("reloadButton").addEventListener("click", takeFileOnDisk);

    // `#edit=EVENT:DB`: the designer's steps, scripted.
    async function scriptedEdit() {
      if (!pendingEdit) return;
      const edit = pendingEdit; pendingEdit = null;
      $("eventPick").value = edit.event; showEntry();
      $("volumeField").value = edit.db; $("volumeField").dispatchEvent(new Event("input"));
      const done = await applyEntry() && await audition(edit.event) && await saveMap(false);
      document.body.dataset.edited = done ? "saved" : $("editStatus").textContent;
    }

    """#
}
