// The arbiter dashboard: keeps a copy of the hall from the `/ws` feed (snapshot, then
// events, resuming from the last seq after a reconnect), draws every board, runs the clocks
// between readings, and lets the arbiter acknowledge alerts and act on a board. The browser
// is signed in by an HttpOnly session cookie (/signin): no token lives in this page.
// The hall overview, triage, replay, report and round pages are in views.js.
"use strict";

const SEVERITY_RANK = { intervene: 0, claim: 1, review: 2, info: 3 };
const STALE_CLOCK_MS = 3000;

const hall = {
  boards: new Map(), // board → board state (as in the snapshot, kept current by events)
  alerts: new Map(), // id → alert record (open, plus acks seen live)
  seq: 0,
  offset: null, // performance.now() − event t_ms: maps event time to local time
  connected: false,
};
/** Who is signed in: { name, role, sections, all_sections } from /api/session. */
let me = null;
let audio = null;
let socket = null;
let retryMs = 500;

// ---------- helpers ----------
const $ = (id) => document.getElementById(id);
function esc(s) {
  return String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}
function label(kind) {
  return String(kind || "").replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());
}
function fmtClock(ms) {
  if (ms == null) return "–:––";
  ms = Math.max(0, ms);
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = s % 60;
  if (h > 0) return `${h}:${String(m).padStart(2, "0")}:${String(sec).padStart(2, "0")}`;
  if (ms < 20000) return `${m}:${String(sec).padStart(2, "0")}.${Math.floor((ms % 1000) / 100)}`;
  return `${m}:${String(sec).padStart(2, "0")}`;
}
/** The event time now, as far as this page can tell. */
function nowT() {
  return hall.offset == null ? 0 : performance.now() - hall.offset;
}
/** Wall-clock time of an event time, for display. */
function eventDate(t_ms) {
  return new Date(Date.now() - Math.max(0, nowT() - t_ms));
}
function fmtTime(t_ms) {
  return eventDate(t_ms).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
}
function toast(text, isError) {
  const el = $("toast");
  el.textContent = text;
  el.className = "toast show" + (isError ? " error" : "");
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => (el.className = "toast"), 3000);
}
function authHeaders(extra = {}) {
  return extra; // the session cookie goes with every same-origin request
}
function toSignIn() {
  if (location.pathname !== "/signin") location.replace("/signin");
}
async function api(method, path, body) {
  const res = await fetch(path, {
    method,
    headers: authHeaders(body === undefined ? {} : { "Content-Type": "application/json" }),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data = null;
  try { data = await res.json(); } catch (_) { /* not JSON */ }
  if (!res.ok) {
    const message = (data && data.error) || `${res.status} ${res.statusText}`;
    if (res.status === 401) toSignIn();
    const err = new Error(message);
    err.status = res.status;
    err.data = data;
    throw err;
  }
  return data;
}

// Enters (or withdraws, result null) a table's result; an entry the server doubts (a
// forfeit where moves were played, another result than the board's) is asked again.
async function enterTableResult(round, table, result) {
  const path = `/api/rounds/${round}/tables/${table}/result`;
  const what = result ? `${result} for table ${table} of round ${round}` : `the withdrawal of table ${table}'s result`;
  try {
    try { await api("POST", path, { result }); }
    catch (e) {
      if (e.status !== 409 || !confirm(e.message)) throw e;
      await api("POST", path, { result, confirm: true });
    }
    toast(`Entered ${what}.`);
  } catch (e) { toast(`Not entered: ${e.message}`, true); }
  refreshRound();
}

// The Round page shows any round the arbiter picks; the current one by default.
async function showRound(n) {
  hall.roundChoice = n;
  refreshRound();
}

// ---------- the feed ----------
function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const params = new URLSearchParams();
  if (hall.seq > 0) params.set("since", hall.seq);
  // On a hub, a node's moves and clocks as soon as it journals them, before the stream
  // numbers them (a daemon of its own sends none).
  params.set("preview", "1");
  const url = `${proto}//${location.host}/ws${params.toString() ? "?" + params : ""}`;
  const ws = new WebSocket(url);
  socket = ws;
  ws.onopen = () => { retryMs = 500; setConnected(true); };
  ws.onmessage = (m) => { try { handle(JSON.parse(m.data)); } catch (e) { console.error(e); } };
  ws.onclose = () => {
    if (socket !== ws) return;
    setConnected(false);
    // A refused handshake looks like a close: sign in again if that is why.
    fetch("/api/session").then((r) => { if (r.status === 401) toSignIn(); }).catch(() => {});
    setTimeout(connect, retryMs);
    retryMs = Math.min(retryMs * 2, 10000);
  };
}
function setConnected(up) {
  hall.connected = up;
  const el = $("conn");
  el.className = "conn " + (up ? "conn-up" : "conn-down");
  el.textContent = up ? "live" : "reconnecting…";
}

function handle(msg) {
  switch (msg.type) {
    case "snapshot": return applySnapshot(msg);
    case "resync": return; // a snapshot follows
    case "alert_ack": return applyAck(msg);
    case "preview": return (msg.events || []).forEach(applyPreview);
    case "numbered": return applyNumbered(msg);
    case "arbiter_action": return applyAction(msg);
    default: return applyEvent(msg);
  }
}

function applySnapshot(s) {
  hall.round = s.round || null;
  hall.offset = performance.now() - (s.now_t_ms || 0);
  hall.boards.clear();
  previews.clear(); // what follows a snapshot comes whole
  for (const b of s.boards || []) hall.boards.set(b.board, { ...b, moves: b.moves || [] });
  hall.alerts.clear();
  for (const a of s.alerts || []) hall.alerts.set(a.id, a);
  hall.seq = s.seq || 0;
  renderAll();
  // The list of rounds (for the Round page's choice) is not in the snapshot.
  if (hall.round) refreshRoundSoon();
}

function boardState(name) {
  let b = hall.boards.get(name);
  if (!b) {
    b = { board: name, status: null, game: null, fen: null, start_fen: null, last_move: null, moves: [], clock: null, result: null };
    hall.boards.set(name, b);
  }
  return b;
}

// First sights on a hub: a node's event before the stream numbers it. What the board shows
// (its moves, clock, status and result) is drawn now; alerts wait for their number, which
// acks need. Kept until the server sends its numbers (`numbered`) instead of it again.
const previews = new Map();
// More than the server remembers (at most 2 × 16,384): an event whose preview was forgotten
// here would be told by its numbers only, and lost.
const PREVIEWS_KEPT = 50000;
const previewKey = (node, nodeSeq) => `${node}\u0000${nodeSeq}`;
function applyPreview(e) {
  if (!e || e.seq !== undefined || !e.node) return;
  previews.set(previewKey(e.node, e.node_seq), e);
  if (previews.size > PREVIEWS_KEPT) previews.delete(previews.keys().next().value);
  if (["move", "clock", "board_status", "game_end"].includes(e.type)) applyEvent(e);
}
// The previews of node_seq … node_seq + count − 1 take the seqs seq … seq + count − 1 (an
// alert's id is its seq).
function applyNumbered(msg) {
  for (let i = 0; i < msg.count; i++) {
    const key = previewKey(msg.node, msg.node_seq + i);
    const e = previews.get(key);
    previews.delete(key);
    if (!e) continue;
    e.seq = msg.seq + i;
    if (e.type === "alert") e.id = e.seq;
    applyEvent(e);
  }
}

function applyEvent(e) {
  if (typeof e.seq === "number") {
    if (e.seq <= hall.seq) return;
    hall.seq = e.seq;
  }
  // Live events tighten the event-time → local-time mapping.
  const offset = performance.now() - e.t_ms;
  if (hall.offset == null || offset < hall.offset) hall.offset = offset;
  // Round-wide events (board "*"): the server joins pairings with boards; ask it.
  if (e.type === "pairings" || e.type === "table_result" || e.type === "table_game") { refreshRound(); return; }
  // A game's start or end changes the round's tables (and a board's round game).
  if (e.type === "game_start" || e.type === "game_end") refreshRoundSoon();
  const b = boardState(e.board);
  switch (e.type) {
    case "board_status":
      b.status = { state: e.state, serial: e.serial, version: e.version, orientation: e.orientation, port: e.port, clock_version: e.clock_version };
      break;
    case "game_start":
      Object.assign(b, { game: e.game, fen: e.start_fen, start_fen: e.start_fen, moves: [], last_move: null, result: null, reason: null, irregular_placement: null, reserves: null });
      break;
    case "move": {
      if (b.game !== e.game) Object.assign(b, { game: e.game, moves: [], result: null, reason: null });
      // The numbered move a preview showed already: the plies previewed after it stay.
      const shown = b.moves[e.ply - 1];
      if (shown && shown.uci === e.uci && shown.t_ms === e.t_ms && b.moves.length > e.ply) break;
      // Contract §3: a move for a ply already sent replaces it and every later ply.
      b.moves.length = Math.min(b.moves.length, e.ply - 1);
      const m = { ply: e.ply, side: e.side, uci: e.uci, san: e.san, white_ms: e.white_ms, black_ms: e.black_ms, t_ms: e.t_ms };
      b.moves.push(m);
      b.last_move = m;
      b.fen = e.fen;
      b.irregular_placement = null;
      break;
    }
    case "clock": {
      // On a hub (Unix times): a reading older than the one shown, numbered after the
      // preview of a newer one.
      if (e.node && b.clock && b.clock.t_ms > e.t_ms) return;
      // The clock ticker redraws times; only a clock appearing changes the page.
      const appeared = !b.clock || b.clock_connected === false;
      b.clock = { white_ms: e.white_ms, black_ms: e.black_ms, running: e.running, t_ms: e.t_ms };
      b.clock_connected = true;
      if (!appeared) return;
      break;
    }
    case "alert":
      hall.alerts.set(e.id, { ...e, acked: false, fresh: true });
      if (e.kind === "illegal_position") b.irregular_placement = e.fen;
      if (e.kind === "position_restored") b.irregular_placement = null;
      if (e.kind === "battery_low") b.battery_low = true;
      if (e.kind === "clock_disconnected") b.clock_connected = false;
      if (e.severity === "intervene") beep();
      break;
    case "game_end":
      if (b.game === e.game) { b.result = e.result; b.reason = e.reason; }
      break;
    case "reserves":
      b.reserves = [e.white, e.black];
      break;
  }
  scheduleRender();
}

// ---------- rounds ----------
let roundTimer = null;
function refreshRoundSoon() {
  if (roundTimer) return;
  roundTimer = setTimeout(() => { roundTimer = null; refreshRound(); }, 500);
}

async function refreshRound() {
  try {
    const boards = await api("GET", "/api/boards");
    for (const nb of boards) {
      const b = boardState(nb.board);
      b.pairing = nb.pairing || null;
      b.after_game = !!nb.after_game;
      b.round_game = nb.round_game || null;
    }
    const rounds = await api("GET", "/api/rounds");
    hall.rounds = rounds;
    const current = rounds.find((r) => r.current);
    hall.round = current ? await api("GET", `/api/rounds/${current.round}`) : null;
    const chosen = rounds.find((r) => r.round === hall.roundChoice && !r.current);
    hall.roundShown = chosen ? await api("GET", `/api/rounds/${chosen.round}`) : null;
  } catch (_) { /* shown by api() */ }
  scheduleRender();
}

function playerText(p) {
  return p ? `${p.title ? p.title + " " : ""}${p.name}${p.rating ? " (" + p.rating + ")" : ""}` : "?";
}

function pairingHtml(b) {
  const p = b.pairing;
  if (!p) return "";
  return `<div class="pairing">R${p.round} · T${p.table}: ${esc(playerText(p.white))} – ${esc(playerText(p.black))}</div>`;
}

function renderRound() {
  const r = hall.round;
  $("round-head").textContent = r
    ? `Round ${r.round}: ${r.tables.length} tables, ${r.unfinished.length} without a result`
    : "Round: no pairings imported";
  if (!r) { $("round-body").innerHTML = ""; return; }
  const warn = [];
  if (r.tables_without_board.length) warn.push(`Tables with no board: ${r.tables_without_board.join(", ")}`);
  if (r.boards_without_pairing.length) warn.push(`Boards with no pairing: ${r.boards_without_pairing.map(esc).join(", ")}`);
  for (const c of r.contested_tables || []) warn.push(`Table ${c.table} is claimed by ${c.boards.map(esc).join(" and ")}: neither stands at it; name one in the hub's [[tables]] (label = "${esc(c.boards[0])}", board = ${c.table})`);
  $("round-body").innerHTML = `${warn.map((w) => `<p class="warn">${w}</p>`).join("")}
    <table class="pairings"><thead><tr><th>Table</th><th>Board</th><th>White</th><th>Black</th><th>Result</th><th>State</th></tr></thead><tbody>
    ${r.tables.map((t) => `<tr><td>${t.table}</td><td>${esc(t.board || "–")}</td><td>${esc(playerText(t.white))}</td><td>${esc(playerText(t.black))}</td><td>${esc(t.result || "")}${t.entered ? " (arbiter)" : ""}</td><td>${esc(t.state.replace("_", " "))}</td></tr>`).join("")}
    </tbody></table>
    <p><a href="/api/rounds/${r.round}/results.csv">results.csv</a>
    ${r.format === "trf" ? ` · <a href="/api/rounds/${r.round}/results.trf">results.trf</a>` : ""}
    · <a href="/public/round/${r.round}.pgn">public round PGN</a></p>`;
}

$("pairings-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const file = $("pairings-file").files[0];
  const round = $("pairings-round").value;
  if (!file) return;
  const res = await fetch(`/api/rounds/${round}/pairings?order=${$("pairings-order").value}`, {
    method: "POST", headers: authHeaders({ "Content-Type": "text/plain" }), body: await file.arrayBuffer(),
  });
  let data = null;
  try { data = await res.json(); } catch (_) { /* not JSON */ }
  if (res.status === 401) { toSignIn(); return; }
  if (!res.ok) {
    const lines = (data && data.problems || []).map((p) => `line ${p.line ?? "–"}: ${p.message}; fix: ${p.fix}`);
    $("round-body").innerHTML = `<p class="warn">${esc((data && data.error) || res.statusText)}</p><pre>${esc(lines.join("\n"))}</pre>`;
    toast("Pairings not imported", true);
    return;
  }
  toast(`Round ${round}: ${data.tables.length} tables imported`);
});

function applyAck(msg) {
  const a = hall.alerts.get(msg.id);
  if (a) a.acked = true;
  scheduleRender();
}

// Who took an action (an `arbiter_action` event): shown on the alert it acknowledged.
function applyAction(e) {
  if (typeof e.seq === "number") {
    if (e.seq <= hall.seq) return;
    hall.seq = e.seq;
  }
  const id = e.action && (e.action.ack ?? e.action.confirm);
  const a = id != null ? hall.alerts.get(id) : null;
  if (a && e.action.ack != null) { a.acked = true; a.acked_by = e.arbiter; }
  scheduleRender();
}

// ---------- sound ----------
function beep() {
  if (!audio) return;
  const t = audio.currentTime;
  for (const [start, freq] of [[0, 880], [0.22, 1175]]) {
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.type = "sine";
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(0.0001, t + start);
    gain.gain.exponentialRampToValueAtTime(0.3, t + start + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, t + start + 0.18);
    osc.connect(gain).connect(audio.destination);
    osc.start(t + start);
    osc.stop(t + start + 0.2);
  }
}
function toggleSound() {
  if (audio) { audio.close(); audio = null; }
  else { audio = new (window.AudioContext || window.webkitAudioContext)(); beep(); }
  $("sound-btn").textContent = audio ? "Sound on" : "Sound off";
}

// ---------- rendering ----------
let renderPending = false;
function scheduleRender() {
  if (renderPending) return;
  renderPending = true;
  requestAnimationFrame(() => { renderPending = false; renderAll(); });
}

function openAlerts() {
  return [...hall.alerts.values()]
    .filter((a) => !a.acked && a.severity !== "info")
    .sort((x, y) => (SEVERITY_RANK[x.severity] - SEVERITY_RANK[y.severity]) || (x.seq - y.seq));
}
function worstSeverity(board) {
  let worst = null;
  for (const a of hall.alerts.values()) {
    if (a.acked || a.board !== board || a.severity === "info") continue;
    if (worst == null || SEVERITY_RANK[a.severity] < SEVERITY_RANK[worst]) worst = a.severity;
  }
  return worst;
}

/** Clock times now: the running side extrapolated from its last reading. */
function clockNow(c) {
  if (!c) return { white: null, black: null, running: null, stale: false };
  // A running DGT clock reports every second: without a reading for longer, the last one is
  // shown as stale rather than run down to a flag that never fell.
  const age = Math.max(0, nowT() - c.t_ms);
  const stale = !!c.running && age > STALE_CLOCK_MS;
  const elapsed = c.running ? Math.min(age, STALE_CLOCK_MS) : 0;
  return {
    white: c.white_ms == null ? null : c.white_ms - (c.running === "white" ? elapsed : 0),
    black: c.black_ms == null ? null : c.black_ms - (c.running === "black" ? elapsed : 0),
    running: c.running,
    stale,
  };
}
function clockHtml(b, side) {
  return `<div class="clock" data-clock="${esc(b.board)}" data-side="${side}">
    <span class="who">${side === "white" ? "White" : "Black"}</span><span class="time">–:––</span></div>`;
}
function tickClocks() {
  for (const el of document.querySelectorAll("[data-clock]")) {
    const b = hall.boards.get(el.dataset.clock);
    if (!b) continue;
    const side = el.dataset.side;
    const now = clockNow(b.clock);
    const ms = now[side];
    el.querySelector(".time").textContent = fmtClock(ms);
    el.classList.toggle("running", now.running === side && !now.stale);
    el.classList.toggle("stale", now.running === side && now.stale);
    el.title = now.stale ? "no clock reading for a while" : "";
    el.classList.toggle("low", ms != null && ms < 20000 && ms > 0);
    el.classList.toggle("flag", ms != null && ms <= 0 && b.clock != null);
  }
}

function statusBadges(b) {
  const s = b.status || {};
  const out = [];
  if (s.state === "disconnected") out.push(`<span class="badge bad">board offline</span>`);
  else if (s.state) out.push(`<span class="badge ok">${esc(s.state)}</span>`);
  else out.push(`<span class="badge">no status</span>`);
  out.push(b.clock_connected === false || !b.clock
    ? `<span class="badge warn">no clock</span>`
    : `<span class="badge ok">clock</span>`);
  if (b.battery_low) out.push(`<span class="badge bad">battery low</span>`);
  if (s.orientation === "rotated") out.push(`<span class="badge">rotated</span>`);
  if (b.irregular_placement) out.push(`<span class="badge bad">irregular</span>`);
  return out.join("");
}

function moveText(m) {
  if (!m) return "start";
  const n = Math.ceil(m.ply / 2);
  return m.side === "white" ? `${n}. ${m.san}` : `${n}… ${m.san}`;
}

// Bughouse: what each player may drop, as glyphs (an upper bound: hand-overs cannot be seen).
const RESERVE_GLYPH = { q: "\u265B", r: "\u265C", b: "\u265D", n: "\u265E", p: "\u265F" };
function reservesHtml(b) {
  if (!b.reserves) return "";
  const glyphs = (s) => (s ? [...s].map((c) => RESERVE_GLYPH[c.toLowerCase()] || "").join("") : "—");
  return `<div class="reserves" title="What each player may drop: an upper bound, hand-overs cannot be seen">
    <span class="res res-white">White ${glyphs(b.reserves[0])}</span>
    <span class="res res-black">Black ${glyphs(b.reserves[1])}</span></div>`;
}

function boardCard(b) {
  const sev = worstSeverity(b.board);
  const fen = b.irregular_placement || b.fen;
  return `<article class="card ${sev ? "sev-" + sev : ""}" data-open="${esc(b.board)}" tabindex="0" aria-label="${esc(b.board)}">
    <div class="card-head"><span class="name">${esc(b.board)}</span><span class="badges">${statusBadges(b)}</span></div>
    ${pairingHtml(b)}
    ${clockHtml(b, "black")}
    ${Diagram.svg(fen, { lastMove: b.irregular_placement ? null : b.last_move && b.last_move.uci, label: `${esc(b.board)} position` })}
    ${clockHtml(b, "white")}
    <div class="card-foot"><span class="last">${esc(moveText(b.last_move))}</span>
      ${b.result ? `<span class="result">${esc(b.result)}</span>` : `<span>${b.moves.length} plies</span>`}</div>
    ${reservesHtml(b)}
  </article>`;
}

// The round table whose game an alert is about: a result gesture is confirmed from the
// alert in one click.
function alertTable(a) {
  for (const r of [hall.round, hall.roundShown]) {
    const t = r && a.game && r.tables.find((x) => x.game === a.game);
    if (t) return { round: r.round, t };
  }
  return null;
}

function resultButtons(a) {
  if (a.kind !== "result_gesture" && a.kind !== "clock_stopped") return "";
  const found = alertTable(a);
  if (!found || !canAct(a.board)) return "";
  const { round, t } = found;
  if (t.result && !t.confirmed) {
    return `<button class="btn btn-confirm" type="button" data-table-result="${round}.${t.table}" data-result="${esc(t.result)}">Confirm ${esc(t.result)}</button>`;
  }
  if (!t.result) return `<a class="btn" href="#/round">Enter the result</a>`;
  return "";
}

function alertHtml(a, withAck) {
  const evidence = [];
  const marks = a.squares || [];
  if (a.fen_before && a.fen) {
    evidence.push(`<div class="evidence">
      <figure>${Diagram.svg(a.fen_before, { marks, coords: false, label: "before" })}<figcaption>before</figcaption></figure>
      <figure>${Diagram.svg(a.fen, { marks, coords: false, label: "after" })}<figcaption>after</figcaption></figure></div>`);
  } else if (a.fen && (marks.length || a.kind === "illegal_position")) {
    evidence.push(`<div class="evidence single"><figure>${Diagram.svg(a.fen, { marks, coords: false, label: "position" })}<figcaption>position</figcaption></figure></div>`);
  }
  const meta = [];
  if (a.article) meta.push(`Art. ${esc(a.article)}`);
  if (a.edition) meta.push(esc(a.edition));
  if (a.side) meta.push(a.side === "white" ? "White" : "Black");
  if (a.ply) meta.push(`ply ${a.ply}`);
  if (a.uci) meta.push(`move ${esc(a.uci)}`);
  if (marks.length) meta.push(`squares ${marks.map(esc).join(" ")}`);
  return `<div class="alert sev-${esc(a.severity)} ${a.fresh && a.severity === "intervene" ? "fresh" : ""} ${a.acked ? "acked" : ""}" data-alert="${a.id}">
    <div class="alert-head"><span class="sev">${esc(String(a.severity).toUpperCase())}</span>
      <span class="alert-board" data-open="${esc(a.board)}">${esc(a.board)}</span>
      <span class="alert-kind">${esc(a.title || label(a.kind))}</span>
      <span class="alert-time">${fmtTime(a.t_ms)}</span></div>
    <div class="alert-msg">${esc(a.message)}</div>
    ${meta.length ? `<div class="alert-meta">${meta.join(" · ")}</div>` : ""}
    ${a.prescription ? `<div class="prescription"><b>Laws:</b> ${esc(a.prescription)}</div>` : ""}
    ${evidence.join("")}
    ${a.acked_by ? `<div class="alert-meta">acknowledged by ${esc(a.acked_by)}</div>` : ""}
    <div class="alert-actions">${alertLinks(a)}${resultButtons(a)}${withAck && !a.acked ? `${canAct(a.board) && a.kind === "two_handed_move" && a.severity !== "intervene" ? `<button class="btn btn-confirm" data-confirm="${a.id}" type="button" title="Count it as an offence (7.5.4)">Confirm offence</button>` : ""}${a.severity !== "info" ? `<button class="btn btn-quiet" data-snooze="${a.id}" type="button" title="Hide it from the queue for five minutes">Snooze</button>` : ""}${canAct(a.board) ? `<button class="btn btn-ack" data-ack="${a.id}" type="button">Acknowledge</button>` : ""}` : ""}</div>
  </div>`;
}

function renderSummary() {
  const boards = [...hall.boards.values()];
  const up = boards.filter((b) => b.status && b.status.state !== "disconnected").length;
  $("summary").textContent = `${up}/${boards.length} boards online · seq ${hall.seq}`;
}

function route() {
  const m = location.hash.match(/^#\/board\/(.+)$/);
  return m ? decodeURIComponent(m[1]) : null;
}

function renderAll() {
  const page = currentPage();
  const board = page.name === "board" ? page.arg : null;
  for (const [id, name] of [["hall", "hall"], ["board-page", "board"], ["round-page", "round"], ["report-page", "report"], ["replay-page", "replay"]]) {
    $(id).hidden = page.name !== name;
  }
  $("toolbar").hidden = page.name !== "hall";
  $("round").hidden = page.name !== "round";
  $("crumbs").innerHTML = page.name === "hall" ? "" : `/ <a href="#/">All boards</a> / ${esc(page.title)}`;
  for (const el of document.querySelectorAll("[data-view]")) el.classList.toggle("on", page.view === el.dataset.view);
  if (board) renderBoardPage(board);
  else if (page.name === "hall") renderHall(page.view);
  else if (page.name === "round") renderRoundPage();
  else if (page.name === "report") renderReportPage(page.arg);
  else if (page.name === "replay") renderReplayPage(page.arg, page.alert);
  renderQueue();
  renderSummary();
  renderRound();
  tickClocks();
}

// ---------- board page ----------
const pageState = { board: null, history: [], games: [], loadedSeq: -1, formsBuilt: null };

async function loadBoardDetails(name) {
  try {
    const d = await api("GET", `/api/boards/${encodeURIComponent(name)}`);
    pageState.history = d.alerts || [];
    pageState.games = d.games || [];
    scheduleRender();
  } catch (_) { /* shown by the toast of the action that needs it */ }
}

function clockChart(moves) {
  const pts = moves.filter((m) => m.white_ms != null && m.black_ms != null);
  if (pts.length < 2) return `<p class="empty">Not enough clock readings yet.</p>`;
  const W = 600, H = 140, pad = 26;
  const maxMs = Math.max(...pts.map((m) => Math.max(m.white_ms, m.black_ms)), 1);
  const maxPly = pts[pts.length - 1].ply;
  const x = (ply) => pad + ((W - pad - 6) * (ply - 1)) / Math.max(1, maxPly - 1);
  const y = (ms) => H - 16 - ((H - 26) * ms) / maxMs;
  const line = (key) => pts.map((m, i) => `${i ? "L" : "M"}${x(m.ply).toFixed(1)},${y(m[key]).toFixed(1)}`).join(" ");
  return `<svg class="chart" viewBox="0 0 ${W} ${H}" preserveAspectRatio="none" role="img" aria-label="clock history">
    <line class="axis" x1="${pad}" y1="${H - 16}" x2="${W}" y2="${H - 16}"/>
    <line class="axis" x1="${pad}" y1="6" x2="${pad}" y2="${H - 16}"/>
    <text x="2" y="14">${esc(fmtClock(maxMs))}</text><text x="2" y="${H - 18}">0</text>
    <text x="${W - 60}" y="${H - 3}">ply ${maxPly}</text>
    <path class="w" d="${line("white_ms")}"/><path class="b" d="${line("black_ms")}"/>
    <text x="${pad + 8}" y="${H - 3}" class="lg-w">— White</text><text x="${pad + 70}" y="${H - 3}" class="lg-b">— Black</text>
  </svg>`;
}

function moveTable(b) {
  const rows = [];
  const ms = b.moves;
  for (let i = 0; i < ms.length; i++) {
    const m = ms[i];
    const n = Math.ceil(m.ply / 2);
    const clk = m.side === "white" ? m.white_ms : m.black_ms;
    const isLast = i === ms.length - 1;
    rows.push(`<tr class="${isLast ? "last" : ""}"><td class="n">${m.side === "white" ? n + "." : n + "…"}</td><td>${esc(m.san)}</td><td class="clk">${fmtClock(clk)}</td></tr>`);
  }
  return rows.length ? `<table>${rows.join("")}</table>` : `<p class="empty">No moves yet.</p>`;
}

function boardForms(name) {
  return `
  <div class="stack">
    <section class="panel"><h3>Claim checker</h3>
      <form class="grid-form" id="claim-form">
        <label for="claim-kind">Claim</label>
        <select id="claim-kind" name="kind">
          <option value="threefold_repetition">Threefold repetition (9.2)</option>
          <option value="fifty_move_rule">Fifty-move rule (9.3)</option>
          <option value="flag">Flag fallen (6.8)</option>
        </select>
        <label for="claim-side">Claimant</label>
        <select id="claim-side" name="side"><option value="white">White</option><option value="black">Black</option></select>
        <label for="claim-move">Intended move</label>
        <input id="claim-move" name="move" placeholder="e.g. Nf3 or g1f3 (optional)">
        <div class="row-actions"><button class="btn btn-primary" type="submit">Check claim</button></div>
      </form>
    </section>
    <section class="panel"><h3>Result</h3>
      <form class="grid-form" id="result-form">
        <div class="row-actions row-start">
          <button class="btn" type="submit" value="1-0">1-0</button>
          <button class="btn" type="submit" value="1/2-1/2">½-½</button>
          <button class="btn" type="submit" value="0-1">0-1</button>
        </div>
      </form>
    </section>
  </div>
  <section class="panel"><h3>Game found under way</h3>
    <p>A board that shows a game already in progress is followed from its position; when the clock does not say who is on move, say it here.</p>
    <form class="grid-form" id="under-way-form">
      <div class="row-actions row-start">
        <button class="btn" type="submit" value="white">White to move</button>
        <button class="btn" type="submit" value="black">Black to move</button>
      </div>
    </form>
  </section>
  <section class="panel"><h3>Replacement board</h3>
    <p>Set the position up on this board, then move the game of the faulty board here: it continues with its moves and its table.</p>
    <form class="grid-form" id="take-over-form">
      <label for="take-over-from">Game of board</label>
      <input id="take-over-from" name="from" placeholder="the replaced board's label, e.g. 12">
      <div class="row-actions"><button class="btn btn-primary" type="submit">Move the game here</button></div>
    </form>
  </section>
  <section class="panel"><h3>Set up the next game</h3>
    <form class="grid-form" id="setup-form">
      <label for="setup-fen">Start FEN</label>
      <input id="setup-fen" name="fen" placeholder="blank = unchanged; standard: rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1">
      <label for="setup-tc">Time control</label>
      <input id="setup-tc" name="time_control" placeholder="e.g. 5400+30, 40/5400+30:1800+30, 180+2">
      <label for="setup-side">White's clock</label>
      <select id="setup-side" name="white_clock_side"><option value="">unchanged / detect</option><option value="left">left</option><option value="right">right</option></select>
      <label for="setup-edition">Edition</label>
      <select id="setup-edition" name="edition"><option value="">unchanged</option><option value="fide-2023">FIDE 2023</option><option value="fide-2018">FIDE 2018</option></select>
      <label for="setup-supervision">Supervision</label>
      <select id="setup-supervision" name="supervision"><option value="">unchanged</option><option value="full">full</option><option value="reduced">reduced</option></select>
      <div class="row-actions"><button class="btn btn-primary" type="submit">Apply setup</button></div>
    </form>
  </section>`;
}

function bindForms(name) {
  const path = (what) => `/api/boards/${encodeURIComponent(name)}/${what}`;
  $("claim-form").onsubmit = async (ev) => {
    ev.preventDefault();
    const f = ev.target;
    const body = { kind: f.kind.value, side: f.side.value };
    if (f.move.value.trim()) body.move = f.move.value.trim();
    try { await api("POST", path("claim"), body); toast("Claim sent to the arbiter engine; its verdict arrives as an alert."); }
    catch (e) { toast(`Claim refused: ${e.message}`, true); }
  };
  $("result-form").onsubmit = async (ev) => {
    ev.preventDefault();
    const result = ev.submitter && ev.submitter.value;
    const b = hall.boards.get(name);
    // After the table's round game, the buttons give the round game its result.
    const rg = b && b.after_game && b.round_game;
    if (rg) {
      if (!result || !confirm(`Enter ${result} for table ${rg.table} of round ${rg.round} (game ${rg.game})?`)) return;
      return enterTableResult(rg.round, rg.table, result);
    }
    if (!result || !confirm(`Record ${result} on ${name}?`)) return;
    try { await api("POST", path("result"), { result }); toast(`Result ${result} recorded.`); }
    catch (e) { toast(`Result refused: ${e.message}`, true); }
  };
  $("under-way-form").onsubmit = async (ev) => {
    ev.preventDefault();
    const to_move = ev.submitter && ev.submitter.value;
    if (!to_move) return;
    try { await api("POST", path("under-way"), { to_move }); toast(`Followed from the board's position, ${to_move} to move.`); }
    catch (e) { toast(`Refused: ${e.message}`, true); }
  };
  $("take-over-form").onsubmit = async (ev) => {
    ev.preventDefault();
    const from = ev.target.from.value.trim();
    if (!from || !confirm(`Move the game of board ${from} to ${name}?`)) return;
    try { await api("POST", path("take-over"), { from }); toast(`The game of ${from} continues on ${name}.`); }
    catch (e) { toast(`Refused: ${e.message}`, true); }
  };
  $("setup-form").onsubmit = async (ev) => {
    ev.preventDefault();
    const body = {};
    for (const el of ev.target.elements) if (el.name && el.value.trim()) body[el.name] = el.value.trim();
    if (!Object.keys(body).length) return toast("Nothing to set up.", true);
    try { await api("POST", path("setup"), body); toast("Setup applied."); }
    catch (e) { toast(`Setup refused: ${e.message}`, true); }
  };
}

function renderBoardPage(name) {
  const page = $("board-page");
  const b = hall.boards.get(name);
  if (pageState.board !== name) {
    pageState.board = name;
    pageState.history = [];
    pageState.formsBuilt = null;
    loadBoardDetails(name);
  }
  if (!b) { page.innerHTML = `<p class="empty">No board ${esc(name)}.</p>`; return; }
  // Forms keep what the arbiter is typing: build them once per board.
  if (pageState.formsBuilt !== name) {
    page.innerHTML = `<div class="stack big-board" id="bp-left"></div><div class="stack"><div id="bp-info"></div><div id="bp-forms">${boardForms(name)}</div><div id="bp-history"></div></div>`;
    bindForms(name);
    pageState.formsBuilt = name;
  }
  const s = b.status || {};
  const fen = b.irregular_placement || b.fen;
  $("bp-left").innerHTML = `
    ${clockHtml(b, "black")}
    ${Diagram.svg(fen, { lastMove: b.irregular_placement ? null : b.last_move && b.last_move.uci, label: `${esc(name)} position` })}
    ${clockHtml(b, "white")}
    <section class="panel"><h3>Moves</h3><div class="moves">${moveTable(b)}</div></section>`;
  const game = b.game ? `<a href="/api/games/${encodeURIComponent(b.game)}/pgn" target="_blank" rel="noopener">${esc(b.game)} · PGN</a>` : "–";
  $("bp-info").innerHTML = `<section class="panel"><h3>${esc(name)}</h3>
    <div class="badges badges-left">${statusBadges(b)}</div>
    <p><a class="btn" href="#/replay/${encodeURIComponent(name)}">Replay the last 30 s</a></p>
    <dl class="facts">
      <dt>Link</dt><dd>${esc(s.state || "unknown")}${s.port ? " · " + esc(s.port) : ""}</dd>
      <dt>Serial</dt><dd>${esc(s.serial || "–")}${s.version ? " · v" + esc(s.version) : ""}</dd>
      <dt>Orientation</dt><dd>${esc(s.orientation || "–")}</dd>
      ${b.pairing ? `<dt>Round</dt><dd>${b.pairing.round} · table ${b.pairing.table}</dd><dt>Players</dt><dd>${esc(playerText(b.pairing.white))} – ${esc(playerText(b.pairing.black))}</dd>` : ""}
      ${b.after_game && b.round_game ? `<dt>Round game</dt><dd>${esc(b.round_game.game)} · ${b.round_game.result ? `<span class="result">${esc(b.round_game.result)}</span>` : "result owed"} — the result buttons act on it</dd>` : ""}
      <dt>${b.after_game ? "After the game" : "Game"}</dt><dd>${game}</dd>
      <dt>Result</dt><dd>${b.result ? `<span class="result">${esc(b.result)}</span> (${esc(label(b.reason))})` : "in progress"}</dd>
      <dt>FEN</dt><dd class="fen">${esc(fen || "–")}</dd>
    </dl></section>
    <section class="panel"><h3>Clock history</h3>${clockChart(b.moves)}</section>`;
  // Alert history: what the server had when the page opened, plus everything seen live.
  const byId = new Map(pageState.history.map((a) => [a.id, a]));
  for (const a of hall.alerts.values()) if (a.board === name) byId.set(a.id, { ...byId.get(a.id), ...a });
  const history = [...byId.values()].sort((x, y) => y.seq - x.seq);
  $("bp-history").innerHTML = `<section class="panel history"><h3>Alert history</h3>${history.length ? history.map((a) => alertHtml(a, true)).join("") : `<p class="empty">No alerts on this board.</p>`}</section>`;
}

// ---------- actions ----------
async function acknowledge(id, button) {
  if (button) button.disabled = true;
  try {
    await api("POST", `/api/alerts/${id}/ack`);
    const a = hall.alerts.get(id);
    if (a) a.acked = true;
    const h = pageState.history.find((x) => x.id === id);
    if (h) h.acked = true;
    scheduleRender();
  } catch (e) {
    if (button) button.disabled = false;
    toast(`Acknowledge failed: ${e.message}`, true);
  }
}

// The arbiter confirms a suspicion (two hands): the core counts and penalises it, and the
// suspicion is acknowledged with it.
async function confirmOffence(id, button) {
  if (button) button.disabled = true;
  try {
    await api("POST", `/api/alerts/${id}/confirm`);
    await acknowledge(id, null);
  } catch (e) {
    if (button) button.disabled = false;
    toast(`Confirm failed: ${e.message}`, true);
  }
}

document.addEventListener("click", (ev) => {
  const snooze = ev.target.closest("[data-snooze]");
  if (snooze) { ev.stopPropagation(); snoozeAlerts(snooze.dataset.snooze); return; }
  const ackGroup = ev.target.closest("[data-ack-group]");
  if (ackGroup) { ev.stopPropagation(); acknowledgeGroup(ackGroup.dataset.ackGroup, ackGroup); return; }
  const tableResult = ev.target.closest("[data-table-result]");
  if (tableResult) {
    ev.stopPropagation();
    const [round, table] = tableResult.dataset.tableResult.split(".").map(Number);
    enterTableResult(round, table, tableResult.dataset.result);
    return;
  }
  const confirmBtn = ev.target.closest("[data-confirm]");
  if (confirmBtn) { ev.stopPropagation(); confirmOffence(Number(confirmBtn.dataset.confirm), confirmBtn); return; }
  const ack = ev.target.closest("[data-ack]");
  if (ack) { ev.stopPropagation(); acknowledge(Number(ack.dataset.ack), ack); return; }
  const open = ev.target.closest("[data-open]");
  if (open) location.hash = `#/board/${encodeURIComponent(open.dataset.open)}`;
});
document.addEventListener("keydown", (ev) => {
  const open = ev.target.closest && ev.target.closest("article[data-open]");
  if (open && (ev.key === "Enter" || ev.key === " ")) { ev.preventDefault(); location.hash = `#/board/${encodeURIComponent(open.dataset.open)}`; }
});
window.addEventListener("hashchange", () => { pageState.board = null; renderAll(); });
$("sound-btn").onclick = toggleSound;
$("signout-btn").onclick = async () => {
  try { await fetch("/api/session", { method: "DELETE" }); } catch (_) { /* signed out anyway */ }
  location.replace("/signin");
};

// ---------- the daemon's health ----------
// /health says "degraded" when the journal fails (disk full, read-only) or a damaged journal
// was set aside: the arbiter must know that what happens now may not survive a restart.
function healthProblems(h) {
  const d = (h && h.daemon) || {};
  const out = [];
  if (d.notice) out.push(d.notice);
  const j = d.journal || {};
  if (j.failure) out.push(`Journal failing (${j.failure.kind}): ${j.failure.message}`);
  if (j.dropped_batches > 0) out.push(`The journal lost ${j.dropped_batches} batches.`);
  if (h && h.status !== "ok" && out.length === 0) out.push(`Daemon status: ${h.status}`);
  return out;
}
async function checkHealth() {
  try {
    const res = await fetch("/health");
    const h = await res.json();
    const problems = healthProblems(h);
    const el = $("sysbanner");
    el.hidden = problems.length === 0;
    el.textContent = problems.join(" · ");
  } catch (_) { /* the feed's own indicator shows a dead server */ }
}

/** Who is signed in decides what the page offers; nobody signed in goes to /signin. */
async function start() {
  const res = await fetch("/api/session").catch(() => null);
  if (res && res.status === 401) { toSignIn(); return; }
  me = res && res.ok ? await res.json() : { name: "?", role: "viewer", sections: [], all_sections: [] };
  $("whoami").textContent = `${me.name} · ${me.role}${me.sections && me.sections.length ? " · " + me.sections.join(", ") : ""}`;
  $("signout-btn").hidden = !me.signed_in_needed;
  document.body.dataset.role = me.role;
  initToolbar();
  setInterval(tickClocks, 100);
  setInterval(checkHealth, 5000);
  renderAll();
  connect();
  checkHealth();
}
start();
