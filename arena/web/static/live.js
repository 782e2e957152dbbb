// The live parts of a page (the ladder's table, the status): each element with
// data-poll="SECONDS" is sent htmx's "poll" event (its hx-trigger) that often, only while the
// tab is visible, and once as soon as a hidden tab shows again. No eval: htmx's
// allowEval stays false, so no filter expression is needed.
const live = () => document.querySelectorAll("[data-poll]");
const ask = () => {
  if (document.visibilityState !== "visible") return;
  for (const part of live()) part.dispatchEvent(new Event("poll"));
};
const first = live()[0];
if (first) {
  const seconds = Number(first.dataset.poll);
  setInterval(ask, Math.max(0.2, seconds) * 1000);
  document.addEventListener("visibilitychange", ask);
}
