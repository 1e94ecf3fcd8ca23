/* global document */
// Progressive enhancement of the stock upload: choosing a file fills the text area with it. Without
// JavaScript the text area takes the file's text pasted in; the form is the same either way.
for (const input of document.querySelectorAll('input[type=file][data-fills]')) {
  const target = document.getElementById(input.dataset.fills);
  if (!target) continue;
  input.hidden = false;
  input.addEventListener('change', async () => {
    const file = input.files && input.files[0];
    if (file) target.value = await file.text();
  });
}
