/* global window, document */
// The offer filters are folded (<details>) so a phone shows the offers first; a window wide
// enough to show both opens them. Without JavaScript they stay one click away.
// The facts above the offers (a product's, its price guide, a seller's) come open, as a desktop and
// a browser without JavaScript show them; a phone folds them to their summary line of key values.
if (window.matchMedia('(min-width: 40rem)').matches) {
  for (const d of document.querySelectorAll('details.filters')) d.open = true;
} else {
  for (const d of document.querySelectorAll('details.fold')) d.open = false;
}
