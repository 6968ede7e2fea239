// slotd — small progressive enhancements. Every page works without this file.
(function () {
  "use strict";

  // Booking forms: one Idempotency-Key per click is already in the form
  // (rendered by the server). Here we disable the button so that a second
  // click does nothing, and on a network error retry the same request, with
  // the same key, so that a retry can never book twice.
  function retryingSubmit(form) {
    form.addEventListener("submit", function (ev) {
      if (!window.fetch) return; // plain form post
      ev.preventDefault();
      var button = form.querySelector("button[type=submit]");
      if (form.dataset.busy === "1") return;
      form.dataset.busy = "1";
      var label = button ? button.textContent : "";
      if (button) { button.disabled = true; button.textContent = "Booking…"; }
      var body = new URLSearchParams(new FormData(form));
      var attempt = 0;
      function send() {
        attempt++;
        fetch(form.action, {
          method: "POST", body: body, credentials: "same-origin",
          headers: { "Content-Type": "application/x-www-form-urlencoded" }
        }).then(function (res) {
          if (res.redirected) { window.location.assign(res.url); return; }
          return res.text().then(function (html) {
            document.open(); document.write(html); document.close();
          });
        }).catch(function () {
          if (attempt < 5) {
            if (button) button.textContent = "Connection lost, retrying…";
            setTimeout(send, Math.min(500 * Math.pow(2, attempt - 1), 4000));
          } else {
            form.dataset.busy = "0";
            if (button) { button.disabled = false; button.textContent = label; }
            var msg = document.createElement("p");
            msg.className = "problem"; msg.setAttribute("role", "alert");
            msg.textContent = "We could not reach the server. Press the button again: you will not be booked twice.";
            form.appendChild(msg);
          }
        });
      }
      send();
    });
  }

  // Other forms: disable the submit button once pressed.
  function oneSubmit(form) {
    form.addEventListener("submit", function () {
      var b = form.querySelector("button[type=submit]");
      if (b) setTimeout(function () { b.disabled = true; }, 0);
    });
  }

  // Hold countdowns: <span data-deadline="RFC 3339" data-expired="word in
  // the page's language">.
  function countdown(el) {
    var deadline = Date.parse(el.dataset.deadline);
    if (isNaN(deadline)) return;
    function tick() {
      var left = Math.max(0, Math.round((deadline - Date.now()) / 1000));
      var m = Math.floor(left / 60), s = left % 60;
      el.textContent = m + ":" + (s < 10 ? "0" : "") + s;
      if (left === 0) {
        el.textContent = "0:00 (" + (el.dataset.expired || "expired") + ")";
        clearInterval(timer);
        setTimeout(function () { window.location.reload(); }, 2000);
      }
    }
    var timer = setInterval(tick, 1000);
    tick();
  }

  // Live regions that refresh themselves: <div data-live="/url">, from an
  // event stream where it has data-events, else (or when the stream is
  // refused) by asking every 2 seconds.
  function live(el) {
    var src = el.dataset.live, timer = null;
    function refresh() {
      fetch(src, { credentials: "same-origin" }).then(function (res) {
        if (res.ok) return res.text();
      }).then(function (html) { if (html) el.innerHTML = html; }).catch(function () {});
    }
    function poll() {
      if (timer) return;
      timer = setInterval(function () { if (!document.hidden) refresh(); }, 2000);
    }
    if (!el.dataset.events || !window.EventSource) { poll(); return; }
    var es = new EventSource(el.dataset.events);
    es.addEventListener("place", function (e) { el.innerHTML = e.data; });
    // The admission's cookie comes with the region's own answer.
    es.addEventListener("admitted", function () { es.close(); refresh(); });
    es.onerror = function () { if (es.readyState === EventSource.CLOSED) poll(); };
  }

  // The kiosk: where the browser has a BarcodeDetector, the camera reads
  // the QR code into the form and sends it; elsewhere the code is typed.
  // A result clears itself after a while, ready for the next person.
  function kiosk(form) {
    var input = form.querySelector("#k-code");
    var result = document.querySelector(".kiosk-result, .problem");
    if (result) setTimeout(function () { result.remove(); input.value = ""; input.focus(); }, 10000);
    if (!("BarcodeDetector" in window) || !navigator.mediaDevices) return;
    var button = form.querySelector("#k-scan");
    var video = form.querySelector("#k-video");
    button.hidden = false;
    button.addEventListener("click", function () {
      var detector = new window.BarcodeDetector({ formats: ["qr_code"] });
      navigator.mediaDevices.getUserMedia({ video: { facingMode: "user" } }).then(function (stream) {
        video.srcObject = stream; video.hidden = false; video.play();
        var timer = setInterval(function () {
          detector.detect(video).then(function (codes) {
            if (!codes.length) return;
            clearInterval(timer);
            stream.getTracks().forEach(function (t) { t.stop(); });
            input.value = codes[0].rawValue;
            form.requestSubmit();
          }).catch(function () {});
        }, 300);
      }).catch(function () { button.hidden = true; });
    });
  }

  // A waiting room's board: its whole state on every event (also the
  // first after a reconnect, which EventSource makes by itself).
  function board(el) {
    var no = el.dataset.tNo, none = el.dataset.tNone;
    // room is the doctor's consulting room beside the called number.
    function ticket(t, room) {
      var f = document.createDocumentFragment();
      [["board-no", no.replace("0", String(t.number))], ["board-room", room ? "\u2192 " + room : undefined], ["board-time", t.time], ["board-name", t.name]].filter(function (p) { return p[1] !== undefined; }).forEach(function (p, i) {
        if (i) f.appendChild(document.createTextNode(" "));
        var s = document.createElement("span"); s.className = p[0]; s.textContent = p[1]; f.appendChild(s);
      });
      return f;
    }
    var es = new EventSource(el.dataset.events);
    es.addEventListener("board", function (e) {
      var b = JSON.parse(e.data);
      if (el.dataset.kind === "department") {
        department(b);
      } else {
        doctor(b);
      }
      el.dataset.updated = String(Number(el.dataset.updated || 0) + 1);
    });
    // A department's board: one row per doctor (their room), rebuilt whole.
    function department(b) {
      var rows = document.getElementById("board-doctors");
      rows.textContent = "";
      b.doctors.forEach(function (d) {
        var tr = document.createElement("tr"); tr.dataset.doctor = d.doctorId;
        var th = document.createElement("th"); th.scope = "row"; th.className = "dept-doctor";
        if (d.room) {
          var r = document.createElement("span"); r.className = "board-room"; r.textContent = d.room; th.appendChild(r);
          th.appendChild(document.createTextNode(" "));
        }
        th.appendChild(document.createTextNode(d.doctor));
        var called = document.createElement("td"); called.className = "dept-called";
        if (d.called) {
          called.appendChild(ticket({number: d.called.number, name: d.called.name}, d.room));
          called.dataset.calls = d.called.calls;
        } else {
          var s = document.createElement("span"); s.className = "board-none"; s.textContent = "\u2014"; called.appendChild(s);
        }
        var next = document.createElement("td"); next.className = "dept-next";
        d.next.forEach(function (t, i) {
          if (i) next.appendChild(document.createTextNode(" \u00b7 "));
          var s = document.createElement("span"); s.className = "board-no"; s.textContent = no.replace("0", String(t.number)); next.appendChild(s);
        });
        tr.appendChild(th); tr.appendChild(called); tr.appendChild(next); rows.appendChild(tr);
      });
    }
    function doctor(b) {
      var called = document.getElementById("board-called");
      called.textContent = "";
      if (b.called) {
        called.appendChild(ticket(b.called, b.room));
      } else {
        var s = document.createElement("span"); s.className = "board-none"; s.textContent = none; called.appendChild(s);
      }
      called.dataset.calls = b.called ? b.called.calls : 0;
      var next = document.getElementById("board-next");
      next.textContent = "";
      b.next.forEach(function (t) { var li = document.createElement("li"); li.appendChild(ticket(t)); next.appendChild(li); });
    }
  }

  document.querySelectorAll("#board[data-events]").forEach(board);
  document.querySelectorAll("#kiosk-form").forEach(kiosk);
  document.querySelectorAll("form[data-retry]").forEach(retryingSubmit);
  document.querySelectorAll("form:not([data-retry])").forEach(oneSubmit);
  document.querySelectorAll("[data-deadline]").forEach(countdown);
  document.querySelectorAll("[data-live]").forEach(live);
})();
