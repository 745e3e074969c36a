// Chess diagrams in SVG, drawn from a FEN: squares, coordinates, last-move and evidence
// highlights, pieces as Unicode chess glyphs. Our own drawing code; no piece artwork.
"use strict";

const Diagram = (() => {
  // The filled glyphs for both colours (outlined glyphs render unevenly across fonts);
  // White is told apart by fill and outline. U+FE0E asks for text, not emoji, presentation.
  const GLYPH = { k: "\u265A", q: "\u265B", r: "\u265C", b: "\u265D", n: "\u265E", p: "\u265F" };
  const FILES = "abcdefgh";

  /** The 64 squares of a FEN placement, a8 first; null where empty. */
  function parsePlacement(fen) {
    const placement = (fen || "").split(" ")[0];
    const ranks = placement.split("/");
    if (ranks.length !== 8) return null;
    const squares = [];
    for (const rank of ranks) {
      for (const ch of rank) {
        if (/[1-8]/.test(ch)) for (let i = 0; i < +ch; i++) squares.push(null);
        else squares.push(ch);
      }
    }
    return squares.length === 64 ? squares : null;
  }

  /** "e4" → [file 0..7, rank 0..7]. */
  function coords(square) {
    if (!square || square.length < 2) return null;
    const f = FILES.indexOf(square[0]);
    const r = +square[1] - 1;
    return f >= 0 && r >= 0 && r < 8 ? [f, r] : null;
  }

  /**
   * The diagram as an SVG string.
   * opts: { lastMove: "e2e4", marks: ["e4", ...], flipped: bool, coords: bool, label: string }
   */
  function svg(fen, opts = {}) {
    const squares = parsePlacement(fen);
    const size = 8 * 10;
    const flipped = !!opts.flipped;
    const at = (f, r) => (flipped ? [7 - f, r] : [f, 7 - r]); // → column, row on screen
    const parts = [];
    parts.push(
      `<svg class="diagram" viewBox="0 0 ${size} ${size}" role="img" aria-label="${opts.label || "chess position"}" xmlns="http://www.w3.org/2000/svg">`
    );
    for (let r = 0; r < 8; r++) {
      for (let f = 0; f < 8; f++) {
        const [c, row] = at(f, r);
        const light = (f + r) % 2 === 1;
        parts.push(`<rect x="${c * 10}" y="${row * 10}" width="10" height="10" class="${light ? "sq-light" : "sq-dark"}"/>`);
      }
    }
    const highlight = (sq, cls) => {
      const p = coords(sq);
      if (!p) return;
      const [c, row] = at(p[0], p[1]);
      parts.push(`<rect x="${c * 10}" y="${row * 10}" width="10" height="10" class="${cls}"/>`);
    };
    if (opts.lastMove && opts.lastMove.includes("@")) {
      // A bughouse drop ("N@h3"): only the square the piece was put on.
      highlight(opts.lastMove.split("@")[1].slice(0, 2), "sq-last");
    } else if (opts.lastMove && opts.lastMove.length >= 4) {
      highlight(opts.lastMove.slice(0, 2), "sq-last");
      highlight(opts.lastMove.slice(2, 4), "sq-last");
    }
    for (const m of opts.marks || []) highlight(m, "sq-mark");
    if (opts.coords !== false) {
      for (let i = 0; i < 8; i++) {
        const file = flipped ? FILES[7 - i] : FILES[i];
        const rank = flipped ? i + 1 : 8 - i;
        parts.push(`<text x="${i * 10 + 9.3}" y="79.2" class="coord ${i % 2 === 1 ? "on-light" : "on-dark"}" text-anchor="end">${file}</text>`);
        parts.push(`<text x="0.6" y="${i * 10 + 2.6}" class="coord ${i % 2 === 0 ? "on-light" : "on-dark"}">${rank}</text>`);
      }
    }
    if (squares) {
      squares.forEach((piece, i) => {
        if (!piece) return;
        const f = i % 8;
        const r = 7 - Math.floor(i / 8);
        const [c, row] = at(f, r);
        const white = piece === piece.toUpperCase();
        const glyph = GLYPH[piece.toLowerCase()];
        if (!glyph) return;
        parts.push(
          `<text x="${c * 10 + 5}" y="${row * 10 + 8.4}" class="piece ${white ? "pc-white" : "pc-black"}" text-anchor="middle">${glyph}\uFE0E</text>`
        );
      });
    } else {
      parts.push(`<text x="40" y="42" class="no-position" text-anchor="middle">no position yet</text>`);
    }
    parts.push("</svg>");
    return parts.join("");
  }

  return { svg, parsePlacement };
})();
