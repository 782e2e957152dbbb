// The replay viewer: draws a backalley-replay (version 1, docs/replay.md) from its JSON
// alone, so a stored match, a local file and a self-contained HTML export show the same.
// The replay becomes a list of frames (one per action: the deal, the joker swap, each bid,
// each card, the deal's score), and the page shows one frame at a time.

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

function bidText(bid) {
  return bid.bid === "board" ? ["board", "double board", "triple board", "quadruple board"][(bid.board_level || 1) - 1] : String(bid.bid);
}

// Every frame the viewer can show, in order.
export function frames(replay) {
  const out = [];
  let totals = [0, 0];
  replay.deals.forEach((deal, dealing) => {
    const hands = deal.hands.map((h) => h.slice());
    const base = { dealing, number: deal.number, deal, totals, tricksWon: [0, 0, 0, 0], bids: [], trick: null, lastWinner: null, swapped: null, points: null };
    const push = (kind, more) => out.push({ ...base, kind, hands: hands.map((h) => h.slice()), ...more });
    push("deal", { label: `deal ${deal.number}: ${deal.hand_size} cards, dealt by seat ${deal.dealer}` });
    let swapped = null;
    if (deal.joker_swap) {
      const s = deal.joker_swap;
      hands[s.seat] = hands[s.seat].filter((c) => c !== s.discarded).concat([s.drawn]);
      swapped = s;
      push("swap", { swapped, label: `seat ${s.seat} discards ${cardText(s.discarded)} and draws a card` });
    }
    const bids = [];
    for (const bid of deal.bids) {
      bids.push(bid);
      push("bid", { swapped, bids: bids.slice(), label: `seat ${bid.seat} bids ${bidText(bid)}` });
    }
    const won = [0, 0, 0, 0];
    deal.tricks.forEach((trick, t) => {
      const plays = [];
      for (const [seat, card] of trick.plays) {
        hands[seat] = hands[seat].filter((c) => c !== card);
        plays.push([seat, card]);
        const complete = plays.length === 4 && trick.winner !== null && trick.winner !== undefined;
        if (complete) won[trick.winner] += 1;
        push("play", {
          swapped, bids: bids.slice(), tricksWon: won.slice(), trickNumber: t + 1,
          trick: { leader: trick.leader, plays: plays.slice(), winner: complete ? trick.winner : null },
          label: `trick ${t + 1}: seat ${seat} plays ${cardText(card)}` + (complete ? ` · seat ${trick.winner} takes it` : ""),
        });
      }
    });
    if (deal.redeal) {
      push("redeal", { swapped, bids: bids.slice(), label: `deal ${deal.number}: everyone passed, redealt` });
    } else if (deal.totals) {
      totals = deal.totals.slice();
      push("end", { swapped, bids: bids.slice(), tricksWon: won.slice(), totals, points: deal.points, label: `deal ${deal.number} scored: ${deal.points[0]} and ${deal.points[1]}` });
    }
  });
  const f = replay.result.forfeit;
  const last = out[out.length - 1];
  if (f) {
    out.push({ ...last, kind: "forfeit", totals: replay.result.totals.slice(), label: `forfeit: seat ${f.seat} (${f.reason}): ${f.detail}` });
  } else if (last) {
    out.push({ ...last, kind: "final", totals: replay.result.totals.slice(), label: `final: ${replay.result.totals[0]} to ${replay.result.totals[1]}` });
  }
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

  // Opens at ?step=K, or ?deal=N (its first frame, then &step=K within that deal).
  openAt(params) {
    const deal = Number(params.get("deal"));
    const step = Number(params.get("step") || 0);
    let start = 0;
    if (deal) {
      const first = this.frames.findIndex((f) => f.number === deal);
      if (first >= 0) start = first;
    }
    this.go(start + (Number.isInteger(step) ? step : 0), false);
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
    const players = this.replay.players;
    const deal = f.deal;
    this.slider.value = String(this.index);
    this.q("step").textContent = `step ${this.index} of ${this.frames.length - 1}`;
    this.q("score-0").textContent = String(f.totals[0]);
    this.q("score-1").textContent = String(f.totals[1]);
    this.q("where").textContent = f.label;
    this.root.dataset.kind = f.kind;
    this.root.dataset.deal = String(f.number);
    for (let seat = 0; seat < 4; seat++) {
      const box = this.root.querySelector(`.seat-${seat}`);
      const shown = this.view === "all" || Number(this.view) === seat;
      const hand = f.hands[seat].slice().sort((a, b) => cardOrder(a) - cardOrder(b));
      const cards = el("div", { class: "hand", "data-testid": `hand-${seat}`, "data-hidden": shown ? "false" : "true" });
      if (shown) hand.forEach((c) => cards.append(cardNode(c), " "));
      else cards.append(el("span", { class: "back" }, `${hand.length} cards`));
      const bid = [...f.bids].reverse().find((b) => b.seat === seat);
      box.replaceChildren(
        el("div", { class: `name team${seat % 2}` }, `${seat}: ${players[seat].name}`, seat === deal.dealer ? " (dealer)" : ""),
        el("div", { class: "meta" }, bid ? `bid ${bidText(bid)}` : "", ` · tricks ${f.tricksWon[seat]}`),
        cards,
      );
    }
    const centre = [
      el("div", {}, "turned ", cardNode(deal.turned), " · trump ", deal.trump ? SUIT[deal.trump] : "none (a joker was turned)"),
    ];
    if (f.swapped) centre.push(el("div", { "data-testid": "swap" }, `seat ${f.swapped.seat} swapped `, cardNode(f.swapped.discarded), " for a card"));
    if (f.trick) {
      const trick = el("div", { class: "trick", "data-testid": "trick" }, `trick ${f.trickNumber}, led by seat ${f.trick.leader}: `);
      for (const [seat, card] of f.trick.plays) {
        const play = el("span", { class: "play" + (seat === f.trick.winner ? " winner" : "") }, `${seat}: `, cardNode(card));
        trick.append(play, " ");
      }
      if (f.trick.winner !== null) trick.append(el("strong", {}, ` seat ${f.trick.winner} takes it`));
      centre.push(trick);
    }
    if (f.kind === "forfeit") centre.push(el("div", { class: "forfeit", "data-testid": "forfeit" }, f.label));
    this.q("centre").replaceChildren(...centre);
    const bids = el("ol", {});
    for (const b of f.bids) bids.append(el("li", {}, `seat ${b.seat}: ${bidText(b)}`, b.board_level ? ` (board level ${b.board_level})` : ""));
    this.q("bidding").replaceChildren(el("h3", {}, "bidding"), bids);
    const contracts = el("table", {});
    contracts.append(el("tr", {}, el("th", {}, "team"), el("th", {}, "bids"), el("th", {}, "tricks"), el("th", {}, "points")));
    for (const team of [0, 1]) {
      const mine = f.bids.filter((b) => b.seat % 2 === team && b.bid !== "pass").map(bidText).join(" + ") || "—";
      const tricks = f.tricksWon[team] + f.tricksWon[team + 2];
      contracts.append(el("tr", {}, el("td", {}, `team ${team}`), el("td", {}, mine), el("td", {}, String(tricks)), el("td", {}, f.points ? String(f.points[team]) : "")));
    }
    this.q("contracts").replaceChildren(el("h3", {}, `deal ${f.number} of 25`), contracts);
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
