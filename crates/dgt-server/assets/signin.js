// The sign-in page: the token goes to POST /api/session once and comes back as an HttpOnly
// session cookie; it is never put in a URL or in the page's storage.
"use strict";

document.getElementById("signin-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const input = document.getElementById("signin-token");
  const error = document.getElementById("signin-error");
  error.hidden = true;
  try {
    const res = await fetch("/api/session", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ token: input.value.trim() }),
      credentials: "same-origin",
    });
    input.value = "";
    if (!res.ok) {
      const data = await res.json().catch(() => ({}));
      throw new Error(res.status === 401 ? "This token matches no account." : (data.error || res.statusText));
    }
    location.replace("/");
  } catch (e) {
    error.textContent = e.message;
    error.hidden = false;
  }
});
