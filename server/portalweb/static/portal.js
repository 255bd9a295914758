// The portal's form: checks each field as the customer types (after they first leave it) and
// on sending, with the rules and texts the server gives the page (tickets.Rules: the same the
// server checks again); narrows the tax regimes to the RFC's kind of person and the CFDI uses
// to that kind and regime; keeps what was typed in sessionStorage, so a reload or a step back
// loses nothing (no cookie). Without this script the form still works: the server checks all.
(function () {
  "use strict";
  var portal = document.body.getAttribute("data-portal") || "";
  var prefix = "timbra-portal:" + portal + ":";
  var store = null;
  try { store = window.sessionStorage; store.getItem("x"); } catch (e) { store = null; }

  if (document.body.getAttribute("data-done")) { // the invoice is made: forget the form
    if (store) {
      for (var i = store.length - 1; i >= 0; i--) {
        var k = store.key(i);
        if (k && k.indexOf(prefix) === 0) { store.removeItem(k); }
      }
    }
    return;
  }
  var form = document.getElementById("factura");
  var rulesEl = document.getElementById("reglas");
  if (!form || !rulesEl) { return; }
  var rules = JSON.parse(rulesEl.textContent);
  var fields = ["number", "total", "tin", "legalName", "zipCode", "taxRegimeCode", "cfdiUseCode", "email"];
  var el = {};
  fields.forEach(function (f) { el[f] = document.getElementById(f); });
  var touched = {};

  // format fills %s and %d in order, as Go's fmt does for these texts.
  function format(msg) {
    var args = Array.prototype.slice.call(arguments, 1), i = 0;
    return msg.replace(/%[sd]/g, function () { return String(args[i++]); });
  }
  function tin() { return el.tin.value.trim().toUpperCase(); }
  function kind() {
    var n = Array.from(tin()).length;
    return n === 12 ? "moral" : n === 13 ? "física" : "";
  }
  var rfcRe = new RegExp(rules.rfcPattern, "u"), zipRe = new RegExp(rules.zipPattern), totalRe = new RegExp(rules.totalPattern);
  var emailRe = /^[^\s@<>,;()\[\]\\":]+@[^\s@<>,;()\[\]\\":]+$/;

  // rfcDateOK is cfdi.CheckRFC's date rule: YYMMDD a day of the calendar (29 February when YY
  // is a multiple of 4).
  function rfcDate(v) { var n = v.length; return v.slice(n - 9, n - 3); }
  function rfcDateOK(v) {
    var d = rfcDate(v), yy = +d.slice(0, 2), mm = +d.slice(2, 4), dd = +d.slice(4, 6);
    var days = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mm];
    if (mm === 2 && yy % 4 !== 0) { days = 28; }
    return dd <= days;
  }
  function applies(opt, k) { return k === "moral" ? opt.getAttribute("data-m") === "1" : k === "física" ? opt.getAttribute("data-f") === "1" : true; }
  function admits(opt, regime) {
    var r = opt.getAttribute("data-r");
    return !regime || r === "*" || (" " + r + " ").indexOf(" " + regime + " ") >= 0;
  }
  function selectedOption(sel) { return sel.options[sel.selectedIndex]; }

  function check(f) {
    var v = el[f].value;
    if (f !== "email" && v.trim() === "") { return rules.required[f]; }
    switch (f) {
    case "total":
      return totalRe.test(v.trim()) ? "" : format(rules.totalFormat, v);
    case "tin":
      var t = tin();
      if (!rfcRe.test(t)) { return format(rules.rfcFormat, t); }
      return rfcDateOK(t) ? "" : format(rules.rfcDate, t, rfcDate(t));
    case "legalName":
      var n = Array.from(v).length;
      return n > rules.nameMax ? format(rules.nameTooLong, rules.nameWords, rules.nameMax, n) : "";
    case "zipCode":
      return zipRe.test(v) ? "" : format(rules.zipFormat, v);
    case "taxRegimeCode":
      var k = kind(), o = selectedOption(el.taxRegimeCode);
      if (k && rfcRe.test(tin()) && o && !applies(o, k)) { return format(rules.regimeKind, v, k, Array.from(tin()).length); }
      return "";
    case "cfdiUseCode":
      var k2 = kind(), u = selectedOption(el.cfdiUseCode), regime = el.taxRegimeCode.value;
      if (k2 && rfcRe.test(tin()) && u && !applies(u, k2)) { return format(rules.useKind, v, k2, Array.from(tin()).length); }
      if (u && regime && !admits(u, regime)) { return format(rules.useRegime, v, regime); }
      return "";
    case "email":
      return v.trim() === "" || emailRe.test(v.trim()) ? "" : format(rules.emailFormat, v.trim());
    }
    return "";
  }
  function show(f, msg) {
    var err = document.getElementById(f + "-error");
    err.textContent = msg;
    el[f].closest(".field").classList.toggle("invalid", !!msg);
    if (msg) { el[f].setAttribute("aria-invalid", "true"); } else { el[f].removeAttribute("aria-invalid"); }
  }

  // The selects keep every option (the server draws them all); those that do not apply are
  // taken out of the list and put back when they apply again.
  var all = {};
  ["taxRegimeCode", "cfdiUseCode"].forEach(function (f) { all[f] = Array.prototype.slice.call(el[f].options, 1); });
  function narrow(f, keep) {
    var sel = el[f], value = sel.value;
    all[f].forEach(function (o) {
      var ok = keep(o) || o.value === value; // the chosen one stays, and its error says why
      if (ok && o.parentNode !== sel) { sel.appendChild(o); }
      if (!ok && o.parentNode === sel) { sel.removeChild(o); }
    });
    all[f].forEach(function (o) { if (o.parentNode === sel) { sel.appendChild(o); } }); // catalog order
    sel.value = value;
  }
  function filter() {
    var k = rfcRe.test(tin()) ? kind() : "";
    narrow("taxRegimeCode", function (o) { return applies(o, k); });
    var regime = el.taxRegimeCode.value;
    narrow("cfdiUseCode", function (o) { return applies(o, k) && admits(o, regime); });
  }

  function save(f) { if (store && f !== "token") { try { store.setItem(prefix + f, el[f].value); } catch (e) { /* full */ } } }
  function restore() {
    if (!store) { return; }
    fields.forEach(function (f) {
      var v = store.getItem(prefix + f);
      if (v !== null && el[f].value === "") { el[f].value = v; }
    });
  }

  restore();
  filter();
  fields.forEach(function (f) {
    var input = el[f];
    var ev = input.tagName === "SELECT" ? "change" : "input";
    input.addEventListener(ev, function () {
      if (f === "tin") {
        var pos = input.selectionStart, up = input.value.toUpperCase();
        if (up !== input.value) { input.value = up; input.setSelectionRange(pos, pos); }
      }
      save(f);
      if (f === "tin" || f === "taxRegimeCode") { filter(); }
      if (touched[f] || input.tagName === "SELECT") { touched[f] = true; show(f, check(f)); }
      // the regime and the use depend on the RFC and on each other
      ["taxRegimeCode", "cfdiUseCode"].forEach(function (g) { if (g !== f && touched[g]) { show(g, check(g)); } });
    });
    input.addEventListener("blur", function () {
      if (input.value !== "" || touched[f]) { touched[f] = true; show(f, check(f)); }
    });
  });
  form.addEventListener("submit", function (e) {
    var first = null;
    fields.forEach(function (f) {
      touched[f] = true;
      var msg = check(f);
      show(f, msg);
      if (msg && !first) { first = el[f]; }
    });
    if (first) { e.preventDefault(); first.focus(); }
  });
  var summary = document.getElementById("resumen");
  if (summary) { summary.focus(); }
})();
