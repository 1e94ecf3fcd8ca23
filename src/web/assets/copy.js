/* global document */
// The profile's copy buttons (issue 35): hidden without JavaScript (the secret is then selected
// with one click, `user-select: all`); with it, a click copies the secret it names.
for (const button of document.querySelectorAll('button.copy[data-copy]')) {
  if (!navigator.clipboard) continue;
  button.hidden = false;
  button.addEventListener('click', async () => {
    const target = document.getElementById(button.dataset.copy);
    if (!target) return;
    await navigator.clipboard.writeText(target.textContent.trim());
    const label = button.textContent;
    button.textContent = button.dataset.copied || label;
    setTimeout(() => (button.textContent = label), 1500);
  });
}
