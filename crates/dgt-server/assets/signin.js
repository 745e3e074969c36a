// The sign-in page. The form posts the token to /signin (never in a URL: method="post"),
// which sets an HttpOnly session cookie and sends the browser on to the dashboard; back
// here with ?failed when the token matches no account.
"use strict";

if (new URLSearchParams(location.search).has("failed")) {
  const error = document.getElementById("signin-error");
  error.textContent = "This token matches no account.";
  error.hidden = false;
}
