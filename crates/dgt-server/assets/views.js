// The arbiters' cockpit at event scale: the hall overview (compact tiles in table order with
// filters and search), the triaged alert queue (intervene first, repeated suspicions grouped,
// snooze, info to the event log), instant replay, the printable incident report and the
// round overview. Uses the hall kept by app.js (loaded after this file).
"use strict";

/** Below this a running clock counts as low time on the overview (tile turns orange). */
const LOW_TIME_MS = 120000;
/** A snoozed alert stays out of the queue this long. */
const SNOOZE_MS = 5 * 60 * 1000;
/** Review-level signals that are grouped per board and game when they repeat. */
const GROUPED_KINDS = new Set(["two_handed_move", "touch_move", "castling_rook_first", "clock_pressed_without_move", "promotion_choice_changed", "clock_adjusted"]);

const filters = { q: "", section: "", show: "all", sort: "table" };
const PIECE_NAME = { K: "white king", Q: "white queen", R: "white rook", B: "white bishop", N: "white knight", P: "white pawn",
  k: "black king", q: "black queen", r: "black rook", b: "black bishop", n: "black knight", p: "black pawn" };
const snoozed = new Map(); // alert id → performance.now() until which it is hidden

// ---------- routes ----------
/** The page the hash names: hall (tiles or cards), board, round, report, replay. */
function currentPage() {
  const h = location.hash;
  let m;
  if ((m = h.match(/^#\/board\/(.+)$/))) { const b = decodeURIComponent(m[1]); return { name: "board", arg: b, title: b }; }
  if ((m = h.match(/^#\/report\/(\d+)$/))) return { name: "report", arg: Number(m[1]), title: `Incident report ${m[1]}` };
  if ((m = h.match(/^#\/replay\/([^/]+)(?:\/(\d+))?$/))) {
    const b = decodeURIComponent(m[1]);
    return { name: "replay", arg: b, alert: m[2] ? Number(m[2]) : null, title: `Replay ${b}` };
  }
  if (h === "#/round") return { name: "round", view: "round", title: "Round" };
  if (h === "#/cards") return { name: "hall", view: "cards", title: "Cards" };
  return { name: "hall", view: "tiles", title: "Hall" };
}

/** Whether the signed-in arbiter may act on a board (the server decides; this hides buttons). */
function canAct(board) {
  if (!me || me.role === "viewer") return false;
  if (me.role === "chief" || !me.tables) return true;
  const b = hall.boards.get(board);
  return !!b && b.table != null && me.tables.includes(b.table);
}

// ---------- hall overview ----------
function surname(p) {
  if (!p || !p.name) return "";
  return p.name.split(",")[0].trim();
}
function tableOf(b) {
  return b.table ?? (b.pairing ? b.pairing.table : null);
}
function boardOffline(b) {
  return !!(b.status && b.status.state === "disconnected");
}
function clockOffline(b) {
  return b.clock_connected === false || (!b.clock && !!b.game && !b.result);
}
function lowTime(b) {
  if (b.result || !b.clock) return false;
  const now = clockNow(b.clock);
  return [now.white, now.black].some((ms) => ms != null && ms < LOW_TIME_MS);
}
function needsAttention(b) {
  return !!worstSeverity(b.board) || boardOffline(b) || (clockOffline(b) && !!b.game);
}

function matchesFilters(b) {
  if (filters.section && b.section !== filters.section) return false;
  switch (filters.show) {
    case "attention": if (!needsAttention(b)) return false; break;
    case "low": if (!lowTime(b)) return false; break;
    case "finished": if (!b.result) return false; break;
    case "playing": if (b.result || !b.game) return false; break;
  }
  const q = filters.q.trim().toLowerCase();
  if (!q) return true;
  const t = tableOf(b);
  if (/^\d+$/.test(q)) return String(t) === q || b.board === q;
  const p = b.pairing || {};
  return [b.board, p.white && p.white.name, p.black && p.black.name].some((s) => s && s.toLowerCase().includes(q));
}

function tileStatus(b) {
  const out = [];
  const sev = worstSeverity(b.board);
  if (sev) out.push("sev-" + sev);
  if (boardOffline(b)) out.push("st-offline");
  else if (clockOffline(b) && b.game && !b.result) out.push("st-noclock");
  if (b.result) out.push("st-finished");
  else if (b.clock && b.clock.running) out.push("st-running");
  if (lowTime(b)) out.push("st-low");
  return out.join(" ");
}

function tileHtml(b) {
  const t = tableOf(b);
  const p = b.pairing;
  const w = surname(p && p.white), k = surname(p && p.black);
  const full = p ? `${playerText(p.white)} – ${playerText(p.black)}` : b.board;
  const state = boardOffline(b) ? "board offline" : (clockOffline(b) && b.game && !b.result ? "no clock" : "");
  return `<a class="tile ${tileStatus(b)}" href="#/board/${encodeURIComponent(b.board)}" data-tile="${esc(b.board)}" title="${esc(`${t != null ? "Table " + t + " · " : ""}${b.board} · ${full}`)}">
    <span class="t-head"><span class="t-no">${esc(t ?? b.board)}</span><span class="t-last">${b.result ? `<b class="t-res">${esc(b.result)}</b>` : esc(state || (b.last_move ? moveText(b.last_move) : ""))}</span></span>
    <span class="t-name">${esc(w || "White")}</span><span class="t-clk" data-clock="${esc(b.board)}" data-side="white"><span class="time">–:––</span></span>
    <span class="t-name">${esc(k || "Black")}</span><span class="t-clk" data-clock="${esc(b.board)}" data-side="black"><span class="time">–:––</span></span>
  </a>`;
}

function sortedBoards() {
  const boards = [...hall.boards.values()].filter(matchesFilters);
  const byTable = (x, y) => {
    const a = tableOf(x), b = tableOf(y);
    if (a != null && b != null && a !== b) return a - b;
    if ((a == null) !== (b == null)) return a == null ? 1 : -1;
    return x.board.localeCompare(y.board, undefined, { numeric: true });
  };
  if (filters.sort === "attention") {
    const rank = (b) => {
      const sev = worstSeverity(b.board);
      return sev ? SEVERITY_RANK[sev] : boardOffline(b) || clockOffline(b) ? 5 : lowTime(b) ? 6 : 9;
    };
    return boards.sort((x, y) => rank(x) - rank(y) || byTable(x, y));
  }
  return boards.sort(byTable);
}

function renderHall(view) {
  const el = $("hall");
  const boards = sortedBoards();
  // Up to 200 boards the tiles get more room (a floor arbiter's sections, a smaller event).
  // Beyond 400 (a hub's whole event) each tile keeps the table, the status colour and the
  // clock of the side to move: 1,000 still fit one screen.
  el.className = view === "cards" ? "hall" : boards.length > 400 ? "hall tiles dense" : boards.length > 200 ? "hall tiles" : "hall tiles roomy";
  $("shown").textContent = `${boards.length} of ${hall.boards.size} boards`;
  if (!hall.boards.size) {
    el.innerHTML = `<p class="empty">No boards yet. Connect a DGT board, or run <code>dgt-arbiter demo</code>.</p>`;
    return;
  }
  el.innerHTML = boards.length ? boards.map(view === "cards" ? boardCard : tileHtml).join("") : `<p class="empty">No board matches.</p>`;
}

function initToolbar() {
  const sections = (me && me.sections && me.sections.length ? me.sections : (me && me.all_sections || []).map((s) => s.name));
  $("section-filter").innerHTML = `<option value="">${me && me.sections && me.sections.length ? "My sections" : "All sections"}</option>` +
    sections.map((n) => `<option>${esc(n)}</option>`).join("");
  $("section-filter").hidden = sections.length < 2;
  $("search").addEventListener("input", (ev) => { filters.q = ev.target.value; scheduleRender(); });
  $("section-filter").addEventListener("change", (ev) => { filters.section = ev.target.value; scheduleRender(); });
  $("sort").addEventListener("change", (ev) => { filters.sort = ev.target.value; scheduleRender(); });
  $("toolbar").addEventListener("submit", (ev) => ev.preventDefault());
  $("eventlog").addEventListener("toggle", renderEventLog);
  for (const chip of document.querySelectorAll("[data-filter]")) {
    chip.addEventListener("click", () => {
      filters.show = chip.dataset.filter;
      for (const c of document.querySelectorAll("[data-filter]")) c.classList.toggle("on", c === chip);
      scheduleRender();
    });
  }
}

// ---------- triage ----------
function isSnoozed(a) {
  const until = snoozed.get(a.id);
  return until != null && until > performance.now();
}

/** The queue: open intervene/claim/review alerts, repeated signals grouped per board, game, kind. */
function queueGroups() {
  const groups = new Map();
  for (const a of openAlerts()) {
    if (isSnoozed(a)) continue;
    const key = a.severity === "review" && GROUPED_KINDS.has(a.kind) ? `${a.board}|${a.game || ""}|${a.kind}` : `#${a.id}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(a);
  }
  return [...groups.values()].sort((x, y) =>
    (SEVERITY_RANK[x[0].severity] - SEVERITY_RANK[y[0].severity]) || (x[0].seq - y[0].seq));
}

function groupHtml(list) {
  if (list.length === 1) return alertHtml(list[0], true);
  const a = list[list.length - 1];
  const ids = list.map((x) => x.id).join(",");
  const items = list.map((x) => `<li><span class="alert-time">${fmtTime(x.t_ms)}</span> ${esc(x.message)}
    ${canAct(x.board) && x.kind === "two_handed_move" ? `<button class="btn btn-confirm" data-confirm="${x.id}" type="button">Confirm</button>` : ""}</li>`).join("");
  return `<div class="alert group sev-${esc(a.severity)}" data-alert="${a.id}" data-group="${ids}">
    <div class="alert-head"><span class="sev">${esc(String(a.severity).toUpperCase())}</span>
      <span class="alert-board" data-open="${esc(a.board)}">${esc(boardName(a.board))}</span>
      <span class="alert-kind">${esc(label(a.kind))}</span><span class="times">×${list.length}</span>
      <span class="alert-time">${fmtTime(a.t_ms)}</span></div>
    <details class="group-list"><summary>${list.length} signals in this game</summary><ol>${items}</ol></details>
    <div class="alert-actions">${alertLinks(a)}<button class="btn btn-quiet" data-snooze="${ids}" type="button">Snooze</button>
      ${canAct(a.board) ? `<button class="btn btn-ack" data-ack-group="${ids}" type="button">Acknowledge all</button>` : ""}</div>
  </div>`;
}

function boardName(board) {
  const b = hall.boards.get(board);
  const t = b && tableOf(b);
  return t != null && String(t) !== board ? `T${t} · ${board}` : board;
}

function alertLinks(a) {
  return `<a class="btn btn-quiet" href="#/replay/${encodeURIComponent(a.board)}/${a.id}" title="Replay 20 s before to 10 s after">Replay</a>
    <a class="btn btn-quiet" href="#/report/${a.id}">Report</a>`;
}

function renderQueue() {
  const groups = queueGroups();
  $("alerts").innerHTML = groups.length ? groups.map(groupHtml).join("") : `<p class="empty">No open alerts.</p>`;
  for (const g of groups) for (const a of g) a.fresh = false;
  const count = $("alert-count");
  const open = groups.reduce((n, g) => n + g.length, 0);
  count.textContent = open;
  count.classList.toggle("hot", groups.some((g) => g[0].severity === "intervene"));
  const asleep = openAlerts().filter(isSnoozed).length;
  $("snoozed").hidden = asleep === 0;
  $("snoozed").textContent = `${asleep} snoozed`;
  renderEventLog();
}

function renderEventLog() {
  const info = [...hall.alerts.values()].filter((a) => a.severity === "info").sort((x, y) => y.seq - x.seq).slice(0, 200);
  $("eventlog-count").textContent = info.length;
  if (!$("eventlog").open) return;
  $("eventlog-list").innerHTML = info.map((a) => `<li><span class="alert-time">${fmtTime(a.t_ms)}</span>
    <span class="alert-board" data-open="${esc(a.board)}">${esc(boardName(a.board))}</span> ${esc(a.title || label(a.kind))}: ${esc(a.message)}</li>`).join("");
}

function snoozeAlerts(ids) {
  for (const id of String(ids).split(",")) snoozed.set(Number(id), performance.now() + SNOOZE_MS);
  scheduleRender();
  setTimeout(scheduleRender, SNOOZE_MS + 50);
}

async function acknowledgeGroup(ids, button) {
  if (button) button.disabled = true;
  for (const id of String(ids).split(",")) await acknowledge(Number(id), null);
}

// ---------- instant replay ----------
const replay = { key: null, data: null, steps: [], at: 0, timer: null, speed: 1 };

async function renderReplayPage(board, alertId) {
  const key = `${board}/${alertId ?? ""}`;
  if (replay.key !== key) {
    replay.key = key;
    replay.data = null;
    stopReplay();
    $("replay-page").innerHTML = `<p class="empty">Loading the replay…</p>`;
    const q = alertId != null ? `alert=${alertId}` : `at_ms=${Math.round(nowT())}`;
    try {
      replay.data = await api("GET", `/api/boards/${encodeURIComponent(board)}/replay?${q}`);
    } catch (e) {
      $("replay-page").innerHTML = `<p class="warn">Replay not available: ${esc(e.message)}</p>`;
      return;
    }
    replay.steps = buildSteps(replay.data);
    replay.at = 0;
    replay.alert = alertId;
    drawReplayShell(board);
  }
}

/** A FEN placement as 64 squares (a8 first) and back. */
function squaresOf(fen) {
  const out = [];
  for (const rank of String(fen || "8/8/8/8/8/8/8/8").split(" ")[0].split("/")) {
    for (const ch of rank) {
      if (/[1-8]/.test(ch)) for (let i = 0; i < +ch; i++) out.push(null);
      else out.push(ch);
    }
  }
  return out.length === 64 ? out : new Array(64).fill(null);
}
function placementOf(squares) {
  const ranks = [];
  for (let r = 0; r < 8; r++) {
    let row = "", empty = 0;
    for (const p of squares.slice(r * 8, r * 8 + 8)) {
      if (p) { row += (empty || "") + p; empty = 0; } else empty++;
    }
    ranks.push(row + (empty || ""));
  }
  return ranks.join("/");
}
function squareIndex(name) {
  return (8 - Number(name[1])) * 8 + "abcdefgh".indexOf(name[0]);
}

/**
 * Every state of the board in the window, one step per field update (a piece lifted or
 * put down, from the journal) and per event (moves, clock readings, alerts), in time order.
 */
function buildSteps(d) {
  const s = d.start || {};
  let state = { fen: s.fen, last: s.last_move, white: s.white_ms, black: s.black_ms, running: null, marks: [], note: "window opens", t: d.from_ms, type: "start" };
  const steps = [state];
  // Field updates first at equal times: the update that completes a move precedes the move.
  const items = [
    ...(d.field_updates || []).map((f, i) => ({ ...f, order: 0, i })),
    ...d.events.map((e, i) => ({ ...e, order: 1, i })),
  ].sort((x, y) => x.t_ms - y.t_ms || x.order - y.order || x.i - y.i);
  for (const e of items) {
    const next = { ...state, marks: [], t: e.t_ms, type: e.type, seq: e.seq, note: "" };
    switch (e.type) {
      case "field_update": {
        const squares = squaresOf(state.fen);
        squares[squareIndex(e.square)] = e.piece || null;
        Object.assign(next, { fen: placementOf(squares), last: null, marks: [e.square], note: e.piece ? `${PIECE_NAME[e.piece] || e.piece} put on ${e.square}` : `${e.square} emptied` });
        break;
      }
      case "move":
        Object.assign(next, { fen: e.fen, last: e.uci, white: e.white_ms ?? state.white, black: e.black_ms ?? state.black, note: moveText(e) });
        break;
      case "clock":
        Object.assign(next, { white: e.white_ms, black: e.black_ms, running: e.running, note: `clock ${fmtClock(e.white_ms)} – ${fmtClock(e.black_ms)}${e.running ? ", " + e.running + " to move" : ""}` });
        break;
      case "alert":
        Object.assign(next, { marks: e.squares || [], note: `${String(e.severity).toUpperCase()} ${e.title || label(e.kind)}: ${e.message}`, alert: e.id });
        if (e.kind === "illegal_position" && e.fen) next.fen = e.fen;
        break;
      case "game_start":
        Object.assign(next, { fen: e.start_fen, last: null, note: `game ${e.game} starts` });
        break;
      case "game_end":
        next.note = `game ends ${e.result} (${label(e.reason)})`;
        break;
      case "board_status":
        next.note = `board ${e.state}`;
        break;
      default:
        next.note = label(e.type);
    }
    steps.push(next);
    state = next;
  }
  return steps;
}

function drawReplayShell(board) {
  const d = replay.data;
  $("replay-page").innerHTML = `
    <section class="panel replay-board">
      <h3>Replay · ${esc(boardName(board))}${d.field_updates ? " · field by field" : " · events (no journal here)"}${d.complete ? "" : " · older events: moves only"}</h3>
      <div class="clock" id="rp-black"><span class="who">Black</span><span class="time">–:––</span></div>
      <div id="rp-diagram"></div>
      <div class="clock" id="rp-white"><span class="who">White</span><span class="time">–:––</span></div>
      <div class="replay-controls">
        <button class="btn" type="button" id="rp-first" title="Window start">|◀</button>
        <button class="btn" type="button" id="rp-prev" title="Step back">◀</button>
        <button class="btn btn-primary" type="button" id="rp-play">Play</button>
        <button class="btn" type="button" id="rp-next" title="Step forward">▶</button>
        <select id="rp-speed" aria-label="Speed"><option value="1">real speed</option><option value="0.5">½ speed</option><option value="0.25">¼ speed</option><option value="4">4× fast</option></select>
      </div>
      <input id="rp-slider" type="range" min="0" max="${replay.steps.length - 1}" value="0" aria-label="Position in the replay">
      <p id="rp-note" class="rp-note"></p>
    </section>
    <section class="panel"><h3>Events ${fmtTime(d.from_ms)} – ${fmtTime(d.to_ms)}</h3><ol id="rp-steps" class="rp-steps">
      ${replay.steps.map((s, i) => `<li data-step="${i}" class="${s.type === "alert" ? "rp-alert" : s.type === "field_update" ? "rp-field" : ""}"><span class="alert-time">${fmtOffset(s.t - d.at_ms)}</span> ${esc(s.note)}</li>`).join("")}
    </ol></section>`;
  $("rp-first").onclick = () => showStep(0);
  $("rp-prev").onclick = () => showStep(replay.at - 1);
  $("rp-next").onclick = () => showStep(replay.at + 1);
  $("rp-play").onclick = () => (replay.timer ? stopReplay() : playReplay());
  $("rp-speed").onchange = (ev) => { replay.speed = Number(ev.target.value); };
  $("rp-slider").oninput = (ev) => showStep(Number(ev.target.value));
  $("rp-steps").onclick = (ev) => { const li = ev.target.closest("[data-step]"); if (li) showStep(Number(li.dataset.step)); };
  showStep(0);
}

function fmtOffset(ms) {
  const s = (ms / 1000).toFixed(1);
  return ms >= 0 ? `+${s} s` : `${s} s`;
}

function showStep(i) {
  if (!replay.steps.length) return;
  replay.at = Math.max(0, Math.min(replay.steps.length - 1, i));
  const s = replay.steps[replay.at];
  $("rp-diagram").innerHTML = Diagram.svg(s.fen, { lastMove: s.last, marks: s.marks, label: "replay position" });
  for (const side of ["white", "black"]) {
    const el = $(`rp-${side}`);
    el.querySelector(".time").textContent = fmtClock(s[side]);
    el.classList.toggle("running", s.running === side);
  }
  $("rp-note").textContent = `${fmtOffset(s.t - replay.data.at_ms)} · ${s.note}`;
  $("rp-slider").value = replay.at;
  $("replay-page").dataset.step = replay.at;
  for (const li of document.querySelectorAll("#rp-steps li")) li.classList.toggle("on", Number(li.dataset.step) === replay.at);
}

function playReplay() {
  $("rp-play").textContent = "Pause";
  const tick = () => {
    if (replay.at >= replay.steps.length - 1) return stopReplay();
    const gap = Math.max(0, replay.steps[replay.at + 1].t - replay.steps[replay.at].t);
    replay.timer = setTimeout(() => { showStep(replay.at + 1); tick(); }, Math.min(gap, 10000) / replay.speed);
  };
  tick();
}

function stopReplay() {
  clearTimeout(replay.timer);
  replay.timer = null;
  const b = document.getElementById("rp-play");
  if (b) b.textContent = "Play";
}

// ---------- incident report ----------
/** "27/11/2026, 09:14:05 CET (Europe/Amsterdam)": the venue's local time and its zone. */
function localTimeWithZone(d) {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return `${d.toLocaleString(undefined, { timeZoneName: "short" })}${zone ? ` (${zone})` : ""}`;
}

const report = { id: null, data: null };

async function renderReportPage(id) {
  if (report.id === id && report.data) return;
  report.id = id;
  report.data = null;
  $("report-page").innerHTML = `<p class="empty">Loading the report…</p>`;
  try {
    report.data = await api("GET", `/api/alerts/${id}/report`);
  } catch (e) {
    $("report-page").innerHTML = `<p class="warn">No report: ${esc(e.message)}</p>`;
    return;
  }
  const r = report.data;
  const a = r.alert;
  const p = r.pairing;
  const moves = (r.game && r.game.moves) || [];
  const rows = moves.map((m) => `<tr class="${m.ply === a.ply ? "hit" : ""}"><td>${m.side === "white" ? Math.ceil(m.ply / 2) + "." : Math.ceil(m.ply / 2) + "…"}</td><td>${esc(m.san)}</td><td>${fmtClock(m.white_ms)}</td><td>${fmtClock(m.black_ms)}</td><td>${fmtTime(m.t_ms)}</td></tr>`).join("");
  const actions = r.actions.map((x) => `<tr><td>${fmtTime(x.t_ms)}</td><td>${esc(x.arbiter)}</td><td>${esc(x.role)}</td><td>${esc(actionText(x.action))}</td></tr>`).join("");
  $("report-page").innerHTML = `<article class="report">
    <header class="report-head">
      <h1>Incident report · alert ${a.id}</h1>
      <button class="btn no-print" type="button" id="print-btn">Print / PDF</button>
    </header>
    <dl class="facts">
      <dt>Board</dt><dd>${esc(r.board)}${r.table != null ? ` · table ${r.table}` : ""}</dd>
      ${p ? `<dt>Round</dt><dd>${p.round}</dd><dt>White</dt><dd>${esc(playerText(p.white))}</dd><dt>Black</dt><dd>${esc(playerText(p.black))}</dd>` : ""}
      <dt>Game</dt><dd>${esc((r.game && r.game.id) || a.game || "–")}${r.game && r.game.result ? ` · ${esc(r.game.result)} (${esc(label(r.game.reason))})` : ""}</dd>
      ${r.event ? `<dt>Event</dt><dd>${esc(r.event)}</dd>` : ""}
      <dt>Time control</dt><dd>${esc(r.time_control || "–")}</dd>
      <dt>Time</dt><dd>${esc(localTimeWithZone(eventDate(a.t_ms)))}</dd>
    </dl>
    <section class="report-alert sev-${esc(a.severity)}">
      <h2>${esc(String(a.severity).toUpperCase())} · ${esc(a.title || label(a.kind))}${a.article ? ` · Article ${esc(a.article)} (${esc(a.edition)})` : ""}</h2>
      <p>${esc(a.message)}</p>
      ${a.prescription ? `<blockquote>${esc(a.prescription)}</blockquote>` : ""}
      ${a.acked_by ? `<p>Acknowledged by ${esc(a.acked_by)}.</p>` : a.acked ? "<p>Acknowledged.</p>" : "<p>Not acknowledged yet.</p>"}
    </section>
    <section class="report-positions">
      ${r.position_before ? `<figure>${Diagram.svg(r.position_before, { marks: a.squares || [], label: "before" })}<figcaption>before</figcaption></figure>` : ""}
      ${r.position_after ? `<figure>${Diagram.svg(r.position_after, { marks: a.squares || [], label: r.position_before ? "after" : "position" })}<figcaption>${r.position_before ? "after" : "position at the alert"}</figcaption></figure>` : ""}
    </section>
    <section><h2>Moves with clock times</h2>
      ${rows ? `<table class="report-moves"><thead><tr><th>Move</th><th>SAN</th><th>White</th><th>Black</th><th>At</th></tr></thead><tbody>${rows}</tbody></table>` : `<p>No moves recorded.</p>`}</section>
    <section><h2>Arbiters' actions</h2>
      ${actions ? `<table class="report-actions"><thead><tr><th>At</th><th>Arbiter</th><th>Role</th><th>Action</th></tr></thead><tbody>${actions}</tbody></table>` : `<p>No action recorded on this board since the alert.</p>`}</section>
    <section class="report-decision"><h2>Arbiter's decision</h2>
      <div class="write-in"></div>
      <dl class="sign"><dt>Arbiter</dt><dd></dd><dt>Signature</dt><dd></dd><dt>Date and time</dt><dd></dd></dl>
    </section>
  </article>`;
  $("print-btn").onclick = () => window.print();
}

function actionText(op) {
  if (!op || typeof op !== "object") return String(op);
  const [k, v] = Object.entries(op)[0] || [];
  switch (k) {
    case "ack": return `acknowledged alert ${v}`;
    case "confirm": return `confirmed alert ${v} as an offence`;
    case "result": return `recorded the result ${v}`;
    case "setup": return `set up the board (${Object.entries(v || {}).map(([a, b]) => `${a} ${b}`).join(", ")})`;
    case "claim": return `checked a claim (${(v && v.kind) || "?"}, ${(v && v.side) || "?"})`;
    case "table_result": return v && v.result ? `entered ${v.result} for table ${v.table} of round ${v.round}` : `withdrew the result of table ${v && v.table}`;
    case "table_game": return `named game ${(v && v.game) || "none"} as table ${v && v.table}'s of round ${v && v.round}`;
    case "pairings": return "imported the pairings";
    default: return k || "?";
  }
}

// ---------- round overview ----------
const TABLE_RESULTS = ["1-0", "1/2-1/2", "0-1", "+-", "-+", "--", "1-0u", "1/2-1/2u", "0-1u"];

// Where a table's result comes from, in words: the board's end by rule, the players'
// gesture (to confirm), or the arbiter (and who).
function resultSource(t) {
  if (!t.result) return t.state === "result_owed" ? "result owed" : "";
  if (t.source === "arbiter") return `arbiter${t.by ? " " + t.by : ""}`;
  if (t.source === "gesture") return "gesture · to confirm";
  return "board";
}

function tableActions(r, t) {
  const n = r.round;
  const confirm = t.result && !t.confirmed
    ? `<button class="btn btn-primary" data-enter="${t.table}" data-result="${esc(t.result)}">Confirm ${esc(t.result)}</button>` : "";
  const withdraw = t.entered ? `<button class="btn" data-enter="${t.table}" data-result="">Withdraw</button>` : "";
  return `${confirm}<select data-choice="${t.table}" aria-label="Result for table ${t.table} of round ${n}"><option value="">enter…</option>${TABLE_RESULTS.map((x) => `<option>${x}</option>`).join("")}</select>${withdraw}`;
}

function renderRoundPage() {
  const boards = [...hall.boards.values()].sort((x, y) => (tableOf(x) ?? 1e9) - (tableOf(y) ?? 1e9) || x.board.localeCompare(y.board, undefined, { numeric: true }));
  const r = hall.roundShown || hall.round;
  let rows;
  if (r) {
    rows = r.tables.map((t) => {
      const owed = t.state === "result_owed" || (t.result && !t.confirmed);
      return `<tr class="${t.result ? "done" : t.state === "playing" ? "playing" : ""}${owed ? " owed" : ""}"><td>${t.table}</td><td>${esc(playerText(t.white))}</td><td>${esc(playerText(t.black))}</td>
        <td class="res">${esc(t.result || (t.state === "playing" ? "playing" : "–"))}</td><td>${esc(resultSource(t))}</td>
        <td>${t.board ? `<a href="#/board/${encodeURIComponent(t.board)}">${esc(t.board)}</a>` : "no board"}${t.plies ? ` · ${t.plies} plies` : ""}</td>
        <td class="row-actions row-start">${tableActions(r, t)}</td></tr>`;
    });
  } else {
    rows = boards.map((b) => `<tr class="${b.result ? "done" : b.game ? "playing" : ""}"><td>${esc(tableOf(b) ?? "–")}</td><td>${esc(b.pairing ? playerText(b.pairing.white) : "?")}</td><td>${esc(b.pairing ? playerText(b.pairing.black) : "?")}</td>
      <td class="res">${esc(b.result || (b.game ? "playing" : "–"))}</td><td></td><td><a href="#/board/${encodeURIComponent(b.board)}">${esc(b.board)}</a></td><td></td></tr>`);
  }
  const finished = r ? r.tables.filter((t) => t.result).length : boards.filter((b) => b.result).length;
  const total = r ? r.tables.length : boards.length;
  const toConfirm = r ? (r.unconfirmed || []).length : 0;
  const choices = (hall.rounds || []).map((x) => `<option value="${x.round}"${r && x.round === r.round ? " selected" : ""}>Round ${x.round}${x.current ? " (current)" : ""}</option>`).join("");
  const byes = r && r.byes.length ? `<p>Byes: ${r.byes.map((b) => `${esc(playerText(b.player))} (${esc(b.code)})`).join(", ")}</p>` : "";
  $("round-page").innerHTML = `<section class="panel">
    <h3>${r ? `Round ${r.round}` : "This round (no pairings imported)"} · ${finished} of ${total} finished · ${total - finished} still to finish${toConfirm ? ` · ${toConfirm} to confirm` : ""}</h3>
    ${choices ? `<p><label for="round-choice">Show</label> <select id="round-choice">${choices}</select></p>` : ""}
    ${r ? `<p class="exports">Export: <a href="/api/rounds/${r.round}/results.csv">results.csv</a>${r.format === "trf" ? ` · <a href="/api/rounds/${r.round}/results.trf">results.trf</a>` : ""} · <a href="/public/round/${r.round}.pgn">round PGN (public, delayed)</a></p>` : ""}
    <table class="pairings round-overview"><thead><tr><th>Table</th><th>White</th><th>Black</th><th>Result</th><th>From</th><th>Board</th><th>Arbiter</th></tr></thead><tbody>${rows.join("")}</tbody></table>
    ${byes}
  </section>`;
  const pick = $("round-choice");
  if (pick) pick.onchange = () => showRound(Number(pick.value));
  if (!r) return;
  for (const el of $("round-page").querySelectorAll("[data-enter]")) {
    el.onclick = () => enterTableResult(r.round, Number(el.dataset.enter), el.dataset.result || null);
  }
  for (const el of $("round-page").querySelectorAll("[data-choice]")) {
    el.onchange = () => { if (el.value) enterTableResult(r.round, Number(el.dataset.choice), el.value); };
  }
}
