// The layout facts the tests assert, measured in the page (returns a list of problems).
// VIEWPORT, when the caller defines it, is the width asked for: a phone's browser widens its
// layout viewport to a page that overflows, so window.innerWidth alone would hide the overflow.
const problems = [];
const near = (a, b) => Math.abs(a - b) <= 0.6;
const doc = document.documentElement;
const viewport = typeof VIEWPORT === "number" ? Math.min(VIEWPORT, window.innerWidth) : window.innerWidth;
if (doc.scrollWidth > viewport) {
  problems.push(`the page scrolls sideways: ${doc.scrollWidth} > ${viewport}`);
}
// nothing is cut: no box (a board, indented lines) hides part of itself behind a scroll; only
// a table of figures in columns (data-columns) may scroll inside its box
document.querySelectorAll(".scroll:not([data-columns])").forEach((box, b) => {
  if (box.scrollWidth > box.clientWidth + 0.5) {
    problems.push(`box ${b} (${box.dataset.board || box.textContent.trim().slice(0, 20)}) is cut: ${box.scrollWidth} > ${box.clientWidth}`);
  }
});
// a move's coordinates never break at their hyphen ("a10-" at a line's end, "e6" below)
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
for (let node = walker.nextNode(); node; node = walker.nextNode()) {
  for (const m of node.data.matchAll(/[a-z]\d{1,2}-[a-z]\d{1,2}/g)) {
    const range = document.createRange();
    range.setStart(node, m.index);
    range.setEnd(node, m.index + m[0].length);
    const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
    if (tops.size > 1) problems.push(`the move ${m[0]} breaks across lines`);
  }
}
// a legend's sample square sits in the middle of its cell
document.querySelectorAll(".legend .sample").forEach((sample) => {
  const rect = sample.getBoundingClientRect();
  const cell = sample.closest("td").getBoundingClientRect();
  if (Math.abs((rect.left - cell.left) - (cell.right - rect.right)) > 1) {
    problems.push(`a legend sample sits off-centre: ${rect.left - cell.left}px left, ${cell.right - rect.right}px right`);
  }
});
const boards = [...document.querySelectorAll("table.board")];
boards.forEach((table, b) => {
  const box = table.closest(".scroll");
  const boxRect = box.getBoundingClientRect();
  if (boxRect.right > window.innerWidth + 0.5 || boxRect.left < -0.5) {
    problems.push(`board ${b}: its box [${boxRect.left}, ${boxRect.right}] leaves the viewport`);
  }
  const rows = [...table.rows];
  const width = rows[0].cells.length;
  rows.forEach((row, r) => {
    const cells = [...row.cells];
    if (cells.length !== width) problems.push(`board ${b} row ${r}: ${cells.length} cells, not ${width}`);
    const top = cells[0].getBoundingClientRect().top;
    cells.forEach((cell, c) => {
      const rect = cell.getBoundingClientRect();
      if (!near(rect.top, top)) problems.push(`board ${b} row ${r} cell ${c}: top ${rect.top} != ${top}`);
      const left = rows[0].cells[c].getBoundingClientRect().left;
      if (!near(rect.left, left)) problems.push(`board ${b} row ${r} cell ${c}: left ${rect.left} != ${left}`);
    });
  });
  const squares = [...table.querySelectorAll("td")].map((td) => td.getBoundingClientRect());
  const widths = squares.map((r) => r.width), heights = squares.map((r) => r.height);
  const spread = (xs) => Math.max(...xs) - Math.min(...xs);
  if (spread(widths) > 1 || spread(heights) > 1) {
    problems.push(`board ${b}: squares of unequal size (widths ${Math.min(...widths)}-${Math.max(...widths)}, heights ${Math.min(...heights)}-${Math.max(...heights)})`);
  }
  if (Math.abs(widths[0] - heights[0]) > 2) problems.push(`board ${b}: squares are not square (${widths[0]} x ${heights[0]})`);
  const labels = [...table.querySelectorAll("th")].filter((th) => th.textContent.trim());
  if (labels.length !== 4 * (width - 2)) problems.push(`board ${b}: ${labels.length} labels for ${width - 2} columns`);
  labels.forEach((th) => {
    const rect = th.getBoundingClientRect();
    const text = th.textContent.trim();
    const style = getComputedStyle(th);
    if (rect.width < 1 || rect.height < 1 || style.visibility !== "visible" || style.display === "none") {
      problems.push(`board ${b}: label ${text} is not shown`);
    }
    // inside the scroll box's content (reachable by scrolling it), and not clipped by its cell
    const left = rect.left - boxRect.left + box.scrollLeft;
    const top = rect.top - boxRect.top + box.scrollTop;
    if (left < -0.5 || left + rect.width > box.scrollWidth + 0.5 || top < -0.5 || top + rect.height > box.scrollHeight + 0.5) {
      problems.push(`board ${b}: label ${text} lies outside its box`);
    }
    if (th.scrollWidth > th.clientWidth + 1) problems.push(`board ${b}: label ${text} overflows its cell`);
  });
  table.querySelectorAll(".st").forEach((stone) => {
    const rect = stone.getBoundingClientRect();
    const cell = stone.closest("td").getBoundingClientRect();
    if (stone.scrollWidth > stone.clientWidth + 1) problems.push(`board ${b}: value ${stone.textContent} overflows its stone`);
    if (rect.width < 4 || rect.left < cell.left - 0.5 || rect.right > cell.right + 0.5) {
      problems.push(`board ${b}: a stone (${stone.textContent}) does not sit in its cell`);
    }
    const style = getComputedStyle(stone);
    if (stone.textContent && style.color === style.backgroundColor) problems.push(`board ${b}: value ${stone.textContent} is invisible`);
    if (stone.textContent && parseFloat(style.fontSize) < 12) problems.push(`board ${b}: value ${stone.textContent} is ${style.fontSize}, under 12px`);
  });
});
return {problems, boards: boards.length, height: doc.scrollHeight,
        dark: getComputedStyle(document.body).backgroundColor};
