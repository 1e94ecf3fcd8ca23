/* global document */
// The Authorize button waits two seconds before it can be clicked, so a page that hides or covers
// this one cannot get a click on it straight away. Without JavaScript the button works at once
// (the page also refuses to be framed).
(function () {
  var button = document.getElementById('approve');
  if (!button) return;
  button.disabled = true;
  setTimeout(
    function () {
      button.disabled = false;
    },
    Number(button.getAttribute('data-delay')) || 2000,
  );
})();
