// The layout facts the tests assert, measured in the page (returns a list of problems).
const problems = [];
const near = (a, b) => Math.abs(a - b) <= 0.6;
const doc = document.documentElement;
if (doc.scrollWidth > window.innerWidth) {
  problems.push(`the page scrolls sideways: ${doc.scrollWidth} > ${window.innerWidth}`);
}
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
  });
});
return {problems, boards: boards.length, height: doc.scrollHeight,
        dark: getComputedStyle(document.body).backgroundColor};
