// mathhammer serve: small progressive enhancements; every page works without them.
(function () {
  "use strict";
  var answer = document.getElementById("answer");
  // the address bar shows the link that reproduces the answer (Monte Carlo: with its seed)
  if (answer && answer.dataset.link && window.history && history.replaceState) {
    history.replaceState(null, "", answer.dataset.link);
  }
  document.querySelectorAll("input[data-absolute]").forEach(function (input) {
    if (input.value.charAt(0) === "/") input.value = location.origin + input.value;
  });
  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    button.addEventListener("click", function () {
      var input = document.getElementById(button.dataset.copy);
      input.select();
      var done = function () { button.textContent = "copied"; };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(input.value).then(done, function () { document.execCommand("copy"); done(); });
      } else { document.execCommand("copy"); done(); }
    });
  });
  document.querySelectorAll("img[data-hide-on-error]").forEach(function (img) {
    img.addEventListener("error", function () { img.closest("figure").hidden = true; });
  });
  // a form sends only what was filled in, and uses a plain link (GET) unless a file goes up
  var form = document.getElementById("query");
  if (form) {
    form.addEventListener("submit", function () {
      var uploading = false;
      form.querySelectorAll("input[type=file]").forEach(function (f) {
        if (f.files && f.files.length) uploading = true; else f.disabled = true;
      });
      form.querySelectorAll("input, select, textarea").forEach(function (el) {
        if (el.type !== "file" && el.type !== "checkbox" && el.value === "") el.disabled = true;
        if (el.name === "method" && el.value === "auto") el.disabled = true;
      });
      if (!uploading) { form.method = "get"; form.enctype = "application/x-www-form-urlencoded"; }
      window.setTimeout(function () {  // after a back navigation the fields are usable again
        form.querySelectorAll("[disabled]").forEach(function (el) { el.disabled = false; });
      }, 0);
    });
  }
})();
