/* global window, document */
// The offer filters are folded (<details>) so a phone shows the offers first; a window wide
// enough to show both opens them. Without JavaScript they stay one click away.
if (window.matchMedia('(min-width: 40rem)').matches) {
  for (const d of document.querySelectorAll('details.filters')) d.open = true;
}
