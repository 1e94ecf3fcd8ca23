/* global location */
// /docs was the API reference (Redoc) until the guides took its place; the reference's deep links
// (/docs#tag/…, #operation/…, #section/…) live on in bookmarks and other sites. A fragment never
// reaches the server, so this page sends them on to the reference's new address.
(function () {
  if (/^#(tag|operation|section|schema)\//.test(location.hash)) {
    location.replace('/docs/api/reference' + location.hash);
  }
})();
