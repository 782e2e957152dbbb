// The replay viewer: draws a backalley-replay (docs/replay.md) from its JSON alone, so a
// stored match, a local file and a self-contained HTML export show the same.
// The replay becomes a list of frames (one per action: the deal, the joker swap, each bid,
// each card, the deal's score), and the page shows one frame at a time, as a card table:
// each seat's card in front of it, the seat to act marked, the bidding and the tricks so far
// beside it, and a bot's own notes (when the replay carries them) beside the step they are on.

const SUIT = { S: "♠", H: "♥", D: "♦", C: "♣" };
const RANK = "23456789TJQKA";
const SUIT_ORDER = "SHDC";

function cardOrder(card) {
  if (card === "BB") return 53;
  if (card === "LB") return 52;
  return SUIT_ORDER.indexOf(card[1]) * 13 + RANK.indexOf(card[0]);
}

export function cardText(card) {
  if (card === "BB") return "Big Blooper";
  if (card === "LB") return "Little Blooper";
  return (card[0] === "T" ? "10" : card[0]) + SUIT[card[1]];
}

function cards(n) {
  return n === 1 ? "1 card" : `${n} cards`;
}

function bidText(bid) {
  return bid.bid === "board" ? ["board", "double board", "triple board", "quadruple board"][(bid.board_level || 1) - 1] : String(bid.bid);
}

// "random v1", or "random v1 & heuristic v2": the bots of a team, each once.
function teamName(replay, team) {
  const names = [team, team + 2].map((s) => replay.players[s].name);
  return names[0] === names[1] ? names[0] : names.join(" & ");
}

function seatName(replay, seat) {
  return `${replay.players[seat].name} (seat ${seat})`;
}

function ending(replay) {
  const r = replay.result;
  const [a, b] = r.totals;
  if (r.winner === null || r.winner === undefined) return `a draw: ${teamName(replay, 0)} ${a}, ${teamName(replay, 1)} ${b}`;
  const w = r.winner;
  return `${teamName(replay, w)} wins, ${r.totals[w]} to ${r.totals[1 - w]} (${teamName(replay, 1 - w)})`;
}

// Every frame the viewer can show, in order. A frame's actor made its action (a bid or a
// play), with its note if it left one; toAct is the seat whose action comes next.
export function frames(replay) {
  const out = [];
  let totals = [0, 0];
  replay.deals.forEach((deal, dealing) => {
    const hands = deal.hands.map((h) => h.slice());
    const base = { dealing, number: deal.number, deal, totals, tricksWon: [0, 0, 0, 0], bids: [], trick: null, trickNumber: 0, swapped: null, points: null, actor: null, note: null, toAct: null };
    const push = (kind, more) => out.push({ ...base, kind, hands: hands.map((h) => h.slice()), ...more });
    push("deal", { label: `deal ${deal.number}: ${cards(deal.hand_size)}, dealt by ${seatName(replay, deal.dealer)}` });
    let swapped = null;
    if (deal.joker_swap) {
      const s = deal.joker_swap;
      hands[s.seat] = hands[s.seat].filter((c) => c !== s.discarded).concat([s.drawn]);
      swapped = s;
      push("swap", { swapped, label: `${seatName(replay, s.seat)} discards ${cardText(s.discarded)} and draws a card` });
    }
    const bids = [];
    for (const bid of deal.bids) {
      bids.push(bid);
      push("bid", { swapped, bids: bids.slice(), actor: bid.seat, note: bid.note ?? null, label: `${seatName(replay, bid.seat)} bids ${bidText(bid)}` });
    }
    const won = [0, 0, 0, 0];
    let last = null; // the last complete trick: shown until the next lead
    deal.tricks.forEach((trick, t) => {
      const plays = [];
      trick.plays.forEach(([seat, card], i) => {
        hands[seat] = hands[seat].filter((c) => c !== card);
        plays.push([seat, card]);
        const complete = plays.length === 4 && trick.winner !== null && trick.winner !== undefined;
        if (complete) won[trick.winner] += 1;
        const shown = { leader: trick.leader, plays: plays.slice(), winner: complete ? trick.winner : null };
        if (complete) last = shown;
        const note = trick.notes ? trick.notes[i] ?? null : null;
        push("play", {
          swapped, bids: bids.slice(), tricksWon: won.slice(), trickNumber: t + 1, trick: shown, actor: seat, note,
          label: `trick ${t + 1}: ${seatName(replay, seat)} plays ${cardText(card)}` + (complete ? ` · ${seatName(replay, trick.winner)} takes it` : ""),
        });
      });
    });
    const kept = { swapped, bids: bids.slice(), tricksWon: won.slice(), trick: last, trickNumber: deal.tricks.length };
    if (deal.redeal) {
      push("redeal", { ...kept, label: `deal ${deal.number}: everyone passed, redealt` });
    } else if (deal.totals) {
      totals = deal.totals.slice();
      push("end", { ...kept, totals, points: deal.points, label: `deal ${deal.number} scored: ${teamName(replay, 0)} ${deal.points[0]}, ${teamName(replay, 1)} ${deal.points[1]}` });
    }
  });
  const f = replay.result.forfeit;
  const last = out[out.length - 1];
  if (f) {
    const who = seatName(replay, f.seat);
    out.push({ ...last, kind: "forfeit", actor: null, note: null, totals: replay.result.totals.slice(), label: `forfeit: ${who} (${f.reason}): ${f.detail} · ${ending(replay)}` });
  } else if (last) {
    out.push({ ...last, kind: "final", actor: null, note: null, totals: replay.result.totals.slice(), label: `final: ${ending(replay)}` });
  }
  // The seat to act at each frame: the next frame's actor, within the same dealing; at a
  // forfeit, the seat at fault.
  out.forEach((frame, i) => {
    const next = out[i + 1];
    if (next && next.dealing === frame.dealing && next.actor !== null) frame.toAct = next.actor;
  });
  if (f && out.length) out[out.length - 1].toAct = f.seat;
  return out;
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const child of children) node.append(child); // strings become text, never markup
  return node;
}

function cardNode(card) {
  const red = card[1] === "H" || card[1] === "D" || card === "BB";
  return el("span", { class: "card" + (red ? " red" : ""), "data-card": card }, cardText(card));
}

// Where ?deal=N&step=K lands: the nearest frame that exists, and a note when it is not the one asked for.
export function landing(frames, params, forfeited) {
  const asked = params.get("deal");
  const stepAsked = params.get("step");
  if (asked === null && stepAsked === null) {
    return { index: forfeited ? frames.length - 1 : 0, notice: "" }; // a forfeit: open at the fault
  }
  const last = frames.length - 1;
  if (asked === null) { // ?step=K alone: the K-th step of the game
    const k = Number(stepAsked);
    if (!Number.isInteger(k) || stepAsked.trim() === "") return { index: 0, notice: `"${stepAsked}" is not a step: showing step 0` };
    const index = Math.max(0, Math.min(last, k));
    return { index, notice: index === k ? "" : `this game has steps 0 to ${last}: showing step ${index}` };
  }
  const numbers = [...new Set(frames.map((f) => f.number))];
  const notes = [];
  const n = Number(asked);
  let deal = n;
  if (!Number.isInteger(n) || asked.trim() === "") {
    deal = numbers[0];
    notes.push(`"${asked}" is not a deal number: showing deal ${deal}`);
  } else if (!numbers.includes(n)) {
    deal = numbers.reduce((best, d) => (Math.abs(d - n) < Math.abs(best - n) ? d : best), numbers[0]);
    notes.push(`this game has no deal ${n} (it has deals ${numbers[0]} to ${numbers[numbers.length - 1]}): showing deal ${deal}`);
  }
  const first = frames.findIndex((f) => f.number === deal);
  const lastOf = frames.length - 1 - [...frames].reverse().findIndex((f) => f.number === deal);
  const steps = lastOf - first;
  let step = 0;
  if (stepAsked !== null) {
    const k = Number(stepAsked);
    if (!Number.isInteger(k) || stepAsked.trim() === "") notes.push(`"${stepAsked}" is not a step: showing step 0 of deal ${deal}`);
    else if (k < 0 || k > steps) {
      step = k < 0 ? 0 : steps;
      notes.push(`deal ${deal} has steps 0 to ${steps}: showing step ${step}`);
    } else step = k;
  }
  return { index: first + step, notice: notes.join("; ") };
}

export class Viewer {
  constructor(root, replay) {
    this.root = root;
    this.replay = replay;
    this.frames = frames(replay);
    this.index = 0;
    this.view = "all";
    this.timer = null;
    this.q = (id) => root.querySelector(`[data-testid="${id}"]`);
    this.slider = this.q("slider");
    this.slider.max = String(this.frames.length - 1);
    // The frame of each trick's last play, by dealing: the trick list's links.
    this.trickEnds = new Map();
    this.frames.forEach((f, i) => { if (f.kind === "play") this.trickEnds.set(`${f.dealing}:${f.trickNumber}`, i); });
    this.result = this.q("result");
    this.seats = [0, 1, 2, 3].map((s) => root.querySelector(`.seat-${s}`));
    this.slots = [0, 1, 2, 3].map((s) => root.querySelector(`.slot-${s}`));
    this.drawn = new Map();
    for (const team of [0, 1]) this.q(`team-${team}`).textContent = teamName(replay, team);
    for (const option of this.q("view").options) {
      if (option.value !== "all") option.textContent = seatName(replay, Number(option.value));
    }
    this.bind();
  }

  bind() {
    const on = (id, f) => this.q(id).addEventListener("click", f);
    on("first", () => this.go(0));
    on("last", () => this.go(this.frames.length - 1));
    on("next", () => this.go(this.index + 1));
    on("prev", () => this.go(this.index - 1));
    on("next-trick", () => this.seek(1, (f) => f.kind === "play" && f.trick.winner !== null));
    on("prev-trick", () => this.seek(-1, (f) => f.kind === "play" && f.trick.winner !== null));
    on("next-deal", () => this.seek(1, (f) => f.kind === "deal"));
    on("prev-deal", () => this.seek(-1, (f) => f.kind === "deal"));
    on("play", () => this.toggle());
    this.slider.addEventListener("input", () => this.go(Number(this.slider.value)));
    this.q("view").addEventListener("change", (e) => { this.view = e.target.value; this.draw(); });
    this.q("speed").addEventListener("change", () => { if (this.timer) { this.pause(); this.toggle(); } });
    this.q("tricks").addEventListener("click", (e) => {
      const link = e.target.closest("[data-frame]");
      if (link) { e.preventDefault(); this.go(Number(link.dataset.frame)); }
    });
    document.addEventListener("keydown", (e) => {
      if (e.target instanceof HTMLSelectElement || e.target instanceof HTMLInputElement) return;
      const keys = { ArrowRight: () => this.go(this.index + 1), ArrowLeft: () => this.go(this.index - 1), Home: () => this.go(0), End: () => this.go(this.frames.length - 1), " ": () => this.toggle() };
      if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
    });
  }

  // The first frame after (dir 1) or before (dir -1) this one that passes test.
  seek(dir, test) {
    for (let i = this.index + dir; i >= 0 && i < this.frames.length; i += dir) {
      if (test(this.frames[i])) return this.go(i);
    }
    this.go(dir > 0 ? this.frames.length - 1 : 0);
  }

  toggle() {
    if (this.timer) return this.pause();
    if (this.index >= this.frames.length - 1) this.go(0);
    this.timer = setInterval(() => { if (this.index >= this.frames.length - 1) this.pause(); else this.go(this.index + 1); }, Number(this.q("speed").value));
    this.q("play").textContent = "⏸ pause";
  }

  pause() {
    clearInterval(this.timer);
    this.timer = null;
    this.q("play").textContent = "▶ play";
  }

  // Opens at ?deal=N&step=K (a step within that deal), the nearest that exists, with a
  // note saying so; with neither, at the start, or at the fault of a forfeited game.
  openAt(params) {
    const { index, notice } = landing(this.frames, params, Boolean(this.replay.result.forfeit));
    const box = this.q("notice");
    box.textContent = notice;
    box.hidden = !notice;
    this.go(index, false);
  }

  go(i, remember = true) {
    this.index = Math.max(0, Math.min(this.frames.length - 1, i));
    this.draw();
    if (remember && window.history && location.protocol !== "file:") {
      const f = this.frames[this.index];
      const url = new URL(location.href);
      url.searchParams.set("deal", String(f.number));
      url.searchParams.set("step", String(this.index - this.frames.findIndex((g) => g.number === f.number)));
      history.replaceState(null, "", url);
    }
  }

  draw() {
    const f = this.frames[this.index];
    if (!f) return;
    const replay = this.replay;
    const deal = f.deal;
    this.slider.value = String(this.index);
    this.q("step").textContent = `step ${this.index} of ${this.frames.length - 1}`;
    this.q("score-0").textContent = String(f.totals[0]);
    this.q("score-1").textContent = String(f.totals[1]);
    this.q("where").textContent = f.label;
    this.root.dataset.kind = f.kind;
    this.root.dataset.deal = String(f.number);
    const played = new Map((f.trick ? f.trick.plays : []).map(([seat, card]) => [seat, card]));
    for (let seat = 0; seat < 4; seat++) {
      const box = this.seats[seat];
      const shown = this.view === "all" || Number(this.view) === seat;
      const bid = [...f.bids].reverse().find((b) => b.seat === seat);
      const toAct = f.toAct === seat;
      const note = f.note !== null && f.actor === seat ? f.note : null;
      // A step changes one or two seats: the others are left as drawn.
      if (this.changed(`seat${seat}`, [f.dealing, shown, f.hands[seat].join(), bid ? bid.bid : "", f.tricksWon[seat], toAct, f.kind === "forfeit", note])) {
        const hand = f.hands[seat].slice().sort((a, b) => cardOrder(a) - cardOrder(b));
        const held = el("div", { class: "hand", "data-testid": `hand-${seat}`, "data-hidden": shown ? "false" : "true" });
        if (shown) hand.forEach((c) => held.append(cardNode(c), " "));
        else held.append(el("span", { class: "back" }, cards(hand.length)));
        box.dataset.toAct = String(toAct);
        box.classList.toggle("to-act", toAct);
        const parts = [
          el("div", { class: `name team${seat % 2}` }, toAct ? el("span", { class: "marker", "data-testid": "to-act", title: f.kind === "forfeit" ? "at fault" : "to act" }, "▶ ") : "", seatName(replay, seat), seat === deal.dealer ? " · dealer" : ""),
          el("div", { class: "meta" }, bid ? `bid ${bidText(bid)}` : "no bid yet", ` · tricks ${f.tricksWon[seat]}`),
        ];
        if (note !== null) parts.push(el("div", { class: "bot-note", "data-testid": "note", title: "the bot's own note on this step" }, "✎ ", note));
        parts.push(held);
        box.replaceChildren(...parts);
      }
      const slot = this.slots[seat];
      const card = played.get(seat);
      if (this.changed(`slot${seat}`, [card, f.trick && f.trick.winner === seat])) {
        slot.classList.toggle("winner", card !== undefined && f.trick.winner === seat);
        slot.replaceChildren(...(card ? [cardNode(card)] : []));
        slot.dataset.card = card || "";
      }
    }
    const middle = [el("div", {}, "turned ", cardNode(deal.turned)), el("div", {}, "trump ", deal.trump ? SUIT[deal.trump] : "none")];
    if (f.trick) {
      const t = f.trick;
      middle.push(el("div", { "data-testid": "trick" }, `trick ${f.trickNumber}` + (t.winner !== null ? `: ${replay.players[t.winner].name} (seat ${t.winner}) takes it` : `, led by seat ${t.leader}`)));
    }
    if (f.swapped) middle.push(el("div", { "data-testid": "swap" }, `seat ${f.swapped.seat} swapped `, cardNode(f.swapped.discarded), " for a card"));
    this.q("middle").replaceChildren(...middle);
    const result = this.result;
    result.hidden = f.kind !== "forfeit" && f.kind !== "final";
    result.className = f.kind === "forfeit" ? "result forfeit" : "result";
    result.dataset.testid = f.kind === "forfeit" ? "forfeit" : "result";
    result.textContent = f.kind === "forfeit" || f.kind === "final" ? f.label : "";
    if (this.changed("bidding", [f.dealing, f.bids.length])) this.drawBidding(f);
    if (this.changed("tricks", [f.dealing, f.trickNumber, f.trick ? f.trick.plays.length : 0])) this.drawTricks(f);
    if (this.changed("contracts", [f.dealing, f.bids.length, ...f.tricksWon, f.points])) this.drawContracts(f);
  }

  // Whether a part's key differs from when it was last drawn (then it is drawn again).
  changed(part, key) {
    const text = JSON.stringify(key);
    if (this.drawn.get(part) === text) return false;
    this.drawn.set(part, text);
    return true;
  }

  drawBidding(f) {
    const list = el("ol", {});
    for (const b of f.bids) {
      const item = el("li", {}, el("span", { class: `team${b.seat % 2}` }, seatName(this.replay, b.seat)), `: ${bidText(b)}`);
      if (b.note) item.append(el("div", { class: "bot-note" }, "✎ ", b.note));
      list.append(item);
    }
    this.q("bidding").replaceChildren(el("h3", {}, "bidding"), f.bids.length ? list : el("p", { class: "muted" }, "none yet"));
  }

  // The deal's tricks so far, each a link to its last card (the one in play: as played so far).
  drawTricks(f) {
    const list = el("ol", {});
    f.deal.tricks.slice(0, f.trickNumber).forEach((trick, t) => {
      const current = t + 1 === f.trickNumber;
      const plays = current && f.trick ? f.trick.plays : trick.plays;
      const winner = current && f.trick ? f.trick.winner : trick.winner;
      const end = this.trickEnds.get(`${f.dealing}:${t + 1}`);
      const link = el("a", { href: "#", "data-frame": String(end), "data-testid": "trick-link" }, ...plays.flatMap(([, card]) => [cardNode(card), " "]));
      const taken = winner !== null && winner !== undefined ? ` → ${seatName(this.replay, winner)}` : "";
      list.append(el("li", { class: current ? "current" : "" }, link, taken));
    });
    this.q("tricks").replaceChildren(el("h3", {}, "tricks"), list.childElementCount ? list : el("p", { class: "muted" }, "none yet"));
  }

  drawContracts(f) {
    const contracts = el("table", {});
    contracts.append(el("tr", {}, el("th", {}, "team"), el("th", {}, "bids"), el("th", {}, "tricks"), el("th", {}, "points")));
    for (const team of [0, 1]) {
      const mine = f.bids.filter((b) => b.seat % 2 === team && b.bid !== "pass").map(bidText).join(" + ") || "—";
      const tricks = f.tricksWon[team] + f.tricksWon[team + 2];
      contracts.append(el("tr", {}, el("td", { class: `team${team}` }, teamName(this.replay, team)), el("td", {}, mine), el("td", {}, String(tricks)), el("td", {}, f.points ? String(f.points[team]) : "")));
    }
    this.q("contracts").replaceChildren(el("h3", {}, `deal ${f.number} of 25 · ${cards(f.deal.hand_size)}`), contracts);
  }
}

export function start() {
  const root = document.getElementById("viewer");
  const data = document.getElementById("replay-data");
  if (!root || !data) return null;
  const viewer = new Viewer(root, JSON.parse(data.textContent));
  viewer.openAt(new URLSearchParams(location.search));
  root.dataset.readyMs = String(Math.round(performance.now())); // since navigation (bench/web.py)
  root.dataset.ready = "true";
  window.arenaViewer = viewer;
  return viewer;
}

start();
