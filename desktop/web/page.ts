// The timeline page `petmem web` serves at GET /: one self-contained HTML
// document (inline CSS and script, nothing fetched from elsewhere, no build
// step). It reads GET /api/timeline and GET /api/search?q=, both read-only,
// and builds the page with textContent only (never innerHTML with memory in
// it: what the owner said is data, never markup).
//
// What a person sees: the owner's name and profile, family, likes and
// dislikes, traits, habits, goals; yearly events and todos; the timeline of
// facts, moments, events, schedules and episodes grouped by month (newest
// first; archived records marked); the archive's months and digests; the
// episodes' counts; NVS and storage (SPIFFS) use; a search box that asks
// the same search the AI uses, and says so when it finds nothing.

export const PAGE = `<!doctype html>
<html lang="zh-CN">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>petmem · 记忆时间线</title>
<style>
  :root { --ink: #222; --soft: #666; --line: #e3e0da; --bg: #faf8f4; --card: #fff; --accent: #c2632d;
          --fact: #2f6fb0; --moment: #a0499a; --event: #2c8a5a; --schedule: #c2632d; --episode: #6b5bb5; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", "Noto Sans CJK SC", "WenQuanYi Zen Hei", "PingFang SC", "Microsoft YaHei", sans-serif;
         color: var(--ink); background: var(--bg); }
  header { padding: 18px 24px 8px; border-bottom: 1px solid var(--line); background: var(--card); }
  header h1 { margin: 0; font-size: 24px; }
  header .sub { color: var(--soft); font-size: 13px; }
  /* wide: the cards on the left, search and timeline on the right; below
     700 px one column with search and timeline first (they come first in
     the document, so a phone and a screen reader meet them first) */
  main { display: grid; grid-template-columns: minmax(260px, 340px) minmax(0, 1fr); grid-template-areas: "side primary"; gap: 18px; padding: 18px 24px; max-width: 1200px; }
  main > .primary { grid-area: primary; min-width: 0; }
  main > .side { grid-area: side; min-width: 0; }
  @media (max-width: 699px) {
    main { grid-template-columns: minmax(0, 1fr); grid-template-areas: "primary" "side"; padding: 12px; gap: 0; }
    header { padding: 12px 12px 6px; }
    .item { grid-template-columns: auto 1fr; gap: 2px 8px; }
    .item > .body { grid-column: 1 / -1; }
    .item .badge { justify-self: start; }
  }
  section.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; margin-bottom: 16px; }
  section.card h2 { margin: 0 0 8px; font-size: 16px; }
  dl { margin: 0; display: grid; grid-template-columns: auto 1fr; gap: 2px 12px; }
  dt { color: var(--soft); }
  dd { margin: 0; }
  ul { margin: 0; padding-left: 18px; }
  .muted { color: var(--soft); }
  .bar { height: 8px; background: #eee; border-radius: 4px; overflow: hidden; margin: 2px 0 8px; }
  .bar > div { height: 100%; background: var(--accent); }
  form.search { display: flex; gap: 8px; }
  form.search input { flex: 1; padding: 6px 8px; font: inherit; border: 1px solid var(--line); border-radius: 6px; }
  form.search button { padding: 6px 14px; font: inherit; border: 0; border-radius: 6px; background: var(--accent); color: #fff; cursor: pointer; }
  #results { margin-top: 10px; }
  #results li { margin: 2px 0; }
  .month { margin-bottom: 14px; }
  .month h3 { margin: 0 0 6px; font-size: 15px; border-bottom: 1px solid var(--line); padding-bottom: 2px; }
  .item { list-style: none; display: grid; grid-template-columns: 128px 108px minmax(0, 1fr); gap: 8px; padding: 3px 0; }
  .item > .body { min-width: 0; overflow-wrap: anywhere; }
  #empty-help[hidden] { display: none; }
  #empty-help code { background: #f1ede6; padding: 0 4px; border-radius: 4px; }
  .month ul { padding: 0; }
  .item time { color: var(--soft); font-variant-numeric: tabular-nums; font-size: 13px; }
  .badge { font-size: 12px; border-radius: 10px; padding: 0 8px; color: #fff; text-align: center; white-space: nowrap; align-self: start; }
  .k-fact .badge { background: var(--fact); } .k-moment .badge { background: var(--moment); } .k-event .badge { background: var(--event); }
  .k-schedule .badge { background: var(--schedule); } .k-episode .badge { background: var(--episode); }
  .item .detail { display: block; color: var(--soft); font-size: 12px; }
  .archived .text::after { content: " · archived"; color: var(--soft); font-size: 12px; }
  .core .text::after { content: " · core"; color: var(--episode); font-size: 12px; }
  table { border-collapse: collapse; width: 100%; font-size: 13px; }
  th, td { text-align: left; padding: 2px 6px; border-bottom: 1px solid var(--line); vertical-align: top; }
  .error { color: #b00020; }
</style>
</head>
<body>
<header>
  <h1 id="title">petmem</h1>
  <div class="sub" id="subtitle">loading…</div>
</header>
<main>
  <div class="primary">
    <section class="card" id="empty-help" hidden>
      <h2>No memory yet · 还没有记忆</h2>
      <p>The pet remembers what it hears and what its AI writes through the MCP tool <code>memory</code>. To fill this page:</p>
      <ul>
        <li>talk to it through an MCP client: <code>petmem client-config</code> prints the block to paste;</li>
        <li>feed it a conversation: <code>petmem dialog FILE</code> (<code>user: …</code> / <code>assistant: …</code> lines);</li>
        <li>or look at a pet with a year of memory: <code>petmem demo --data DIR</code>, then <code>petmem web --data DIR</code>.</li>
      </ul>
      <p class="muted">宠物记住它听到的话和 AI 通过 memory 工具写下的内容。</p>
    </section>
    <section class="card" id="searchbox">
      <h2>Search · 搜索</h2>
      <form class="search" id="search-form" autocomplete="off">
        <input id="q" name="q" type="search" maxlength="64" placeholder="words to look for · 输入关键词" aria-label="search memory">
        <button type="submit">Search</button>
      </form>
      <div id="results" aria-live="polite"></div>
    </section>
    <section class="card" id="reminders"><h2>Reminders · 提醒</h2><div class="muted" id="reminders-empty">none yet in this run · 暂无提醒</div><ul id="reminder-list" aria-live="polite"></ul></section>
    <section class="card" id="timeline"><h2>Timeline · 时间线</h2><div class="muted">loading…</div></section>
  </div>
  <div class="side">
    <section class="card" id="storage"><h2>Storage · 存储</h2><div class="muted">loading…</div></section>
    <section class="card" id="profile"><h2>Profile · 资料</h2><div class="muted">loading…</div></section>
    <section class="card" id="family"><h2>Family · 家人朋友</h2></section>
    <section class="card" id="likes"><h2>Likes &amp; dislikes · 喜好</h2></section>
    <section class="card" id="about"><h2>Traits, habits, goals · 性格习惯目标</h2></section>
    <section class="card" id="yearly"><h2>Every year &amp; to do · 每年与待办</h2></section>
    <section class="card" id="episodes"><h2>Episodes · 情景记忆</h2></section>
    <section class="card" id="archive"><h2>Archive months · 归档月份</h2></section>
  </div>
</main>
<script>
(function () {
  "use strict";
  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    if (attrs) for (var k in attrs) {
      if (k === "text") e.textContent = attrs[k];
      else if (k === "cls") e.className = attrs[k];
      else e.setAttribute(k, attrs[k]);
    }
    if (children) for (var i = 0; i < children.length; i++) if (children[i]) e.appendChild(children[i]);
    return e;
  }
  function section(id) {
    var s = document.getElementById(id);
    var h = s.querySelector("h2");
    while (s.lastChild !== h) s.removeChild(s.lastChild);
    return s;
  }
  function list(items, empty) {
    if (!items || !items.length) return el("div", { cls: "muted", text: empty || "none yet" });
    var ul = el("ul");
    for (var i = 0; i < items.length; i++) ul.appendChild(el("li", { text: items[i] }));
    return ul;
  }
  function dl(pairs) {
    var d = el("dl");
    for (var i = 0; i < pairs.length; i++) {
      if (pairs[i][1] === undefined || pairs[i][1] === "") continue;
      d.appendChild(el("dt", { text: pairs[i][0] }));
      d.appendChild(el("dd", { text: String(pairs[i][1]) }));
    }
    return d;
  }
  function fmtBytes(n) { return n >= 1048576 ? (n / 1048576).toFixed(2) + " MB" : n >= 1024 ? (n / 1024).toFixed(1) + " KB" : n + " B"; }
  var KIND = { fact: "fact 事实", moment: "moment 时刻", event: "event 事件", schedule: "schedule 日程", episode: "episode 情景" };
  var MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
  function monthTitle(m) {
    var y = m.slice(0, 4), n = Number(m.slice(5, 7));
    return MONTHS[n - 1] + " " + y + " · " + y + "年" + n + "月";
  }

  function render(d) {
    var p = d.profile || {};
    var owner = p.name || "";
    document.getElementById("title").textContent = owner ? owner + "的记忆" : "petmem · 记忆";
    document.title = (owner ? owner + " · " : "") + "petmem 记忆时间线";
    var rel = d.relationship || {};
    document.getElementById("subtitle").textContent = "device time " + d.now.replace("T", " ") + " (" + d.time_zone + ") · relationship: " + (rel.stage || "?") + " · affection " + rel.affection + " · mood " + rel.mood;

    var st = section("storage");
    var n = d.storage.nvs, s = d.storage.storage;
    st.appendChild(el("div", { id: "nvs-use", text: "NVS " + n.percent + "% used (" + fmtBytes(n.used_bytes) + " of " + fmtBytes(n.partition_bytes) + ")" }));
    st.appendChild(el("div", { cls: "bar" }, [el("div", { style: "width:" + Math.min(100, n.percent) + "%" })]));
    st.appendChild(el("div", { id: "spiffs-use", text: "Storage (SPIFFS) " + s.percent + "% used (" + fmtBytes(s.used_bytes) + " of " + fmtBytes(s.usable_bytes) + " usable)" }));
    st.appendChild(el("div", { cls: "bar" }, [el("div", { style: "width:" + Math.min(100, s.percent) + "%" })]));

    var pr = section("profile");
    if (!Object.keys(p).length) pr.appendChild(el("div", { cls: "muted", text: "nothing known yet · 还不认识主人" }));
    else pr.appendChild(dl([["Name 名字", p.name], ["Age 年龄", p.age], ["Gender 性别", p.gender], ["Lives in 住在", p.location], ["Birthday 生日", p.birthday]]));

    var fam = section("family");
    fam.appendChild(list((d.family || []).map(function (f) {
      return (f.relation ? f.relation + " " : "") + f.name + (f.memory ? " — " + f.memory : "");
    }), "no one yet"));

    var lk = section("likes");
    lk.appendChild(el("div", { cls: "muted", text: "likes 喜欢" }));
    lk.appendChild(list(d.likes));
    lk.appendChild(el("div", { cls: "muted", text: "dislikes 不喜欢" }));
    lk.appendChild(list(d.dislikes));

    var ab = section("about");
    ab.appendChild(el("div", { cls: "muted", text: "traits 性格" })); ab.appendChild(list(d.traits));
    ab.appendChild(el("div", { cls: "muted", text: "habits 习惯" })); ab.appendChild(list(d.habits));
    ab.appendChild(el("div", { cls: "muted", text: "goals 目标" }));
    ab.appendChild(list((d.goals || []).map(function (g) { return g.content + " (" + g.progress + "%, " + g.status + ")"; })));

    var yr = section("yearly");
    yr.appendChild(list((d.yearly || []).map(function (e) { return e.date + " " + e.content + (e.type && e.type !== "event" ? " (" + e.type + ")" : ""); }), "no yearly events"));
    if (d.todos && d.todos.length) {
      yr.appendChild(el("div", { cls: "muted", text: "to do 待办" }));
      yr.appendChild(list(d.todos.map(function (t) { return t.content + (t.completed ? " ✓" : ""); })));
    }
    if (d.pending && d.pending.length) {
      yr.appendChild(el("div", { cls: "muted", text: "heard, not yet memory 待确认" }));
      yr.appendChild(list(d.pending.map(function (x) { return x.type + ": " + x.content; })));
    }

    var ep = section("episodes");
    var e = d.episodes || {};
    if (!e.available) ep.appendChild(el("div", { cls: "muted", text: "not available" + (e.error ? ": " + e.error : "") }));
    else ep.appendChild(dl([["active", e.active + " of " + e.cap], ["core", e.core], ["in the trash", e.trash], ["tombstones", e.tombstones]]));

    var ar = section("archive");
    var months = (d.archive && d.archive.months) || [];
    if (!months.length) ar.appendChild(el("div", { cls: "muted", text: d.archive && d.archive.available ? "nothing archived yet" : "archive not available" }));
    else {
      var t = el("table", null, [el("tr", null, [el("th", { text: "month" }), el("th", { text: "facts" }), el("th", { text: "moments" }), el("th", { text: "events" }), el("th", { text: "digests" })])]);
      months.forEach(function (m) {
        var dg = m.digests.map(function (x) { return x.type + " ×" + x.count + (x.keywords.length ? " (" + x.keywords.join(", ") + ")" : ""); }).join("; ");
        t.appendChild(el("tr", { "data-month": m.month }, [el("td", { text: m.month }), el("td", { text: String(m.fact) }), el("td", { text: String(m.moment) }), el("td", { text: String(m.event) }), el("td", { text: dg })]));
      });
      ar.appendChild(t);
    }
    if (d.archive && d.archive.truncated) ar.appendChild(el("div", { cls: "muted", text: d.archive.truncated }));
    if (d.archive && d.archive.unreadable) ar.appendChild(el("div", { cls: "error", text: "cannot read now: " + d.archive.unreadable.join(", ") }));

    var tl = section("timeline");
    if (!d.timeline.length) tl.appendChild(el("div", { cls: "muted", text: "nothing on the timeline yet" }));
    document.getElementById("empty-help").hidden = Boolean(d.timeline.length || Object.keys(p).length || (d.family || []).length || (d.likes || []).length);
    d.timeline.forEach(function (g) {
      var ul = el("ul");
      g.items.forEach(function (it) {
        var cls = "item k-" + it.kind + (it.archived ? " archived" : "") + (it.core ? " core" : "");
        var textCell = el("span", { cls: "body" }, [el("span", { cls: "text", text: it.text }), it.detail ? el("span", { cls: "detail", text: it.detail }) : null]);
        ul.appendChild(el("li", { cls: cls, "data-kind": it.kind }, [el("time", { text: it.at }), el("span", { cls: "badge", text: KIND[it.kind] || it.kind }), textCell]));
      });
      tl.appendChild(el("section", { cls: "month", "data-month": g.month }, [el("h3", { text: monthTitle(g.month) }), ul]));
    });
  }

  function load() {
    fetch("/api/timeline").then(function (r) {
      if (!r.ok) throw new Error("HTTP " + r.status);
      return r.json();
    }).then(render).catch(function (err) {
      var tl = section("timeline");
      tl.appendChild(el("div", { cls: "error", text: "could not load the memory: " + err.message }));
    });
  }

  function showResults(q, d) {
    var box = document.getElementById("results");
    while (box.firstChild) box.removeChild(box.firstChild);
    if (!d.total) {
      box.appendChild(el("div", { id: "no-results", cls: "muted", text: "Nothing found for “" + q + "” · 没有找到" }));
      return;
    }
    box.appendChild(el("div", { cls: "muted", text: d.total + " found for “" + q + "”" }));
    // the ranked hits first (the one retrieval: kind, text, age), then every record holding the words
    if ((d.hits || []).length) {
      var best = el("ol", { id: "hits" });
      d.hits.forEach(function (h) { best.appendChild(el("li", { cls: "hit", text: h.kind + (h.age ? " (" + h.age + ")" : "") + (h.summary ? " [summary]" : "") + ": " + h.text })); });
      box.appendChild(best);
    }
    var ul = el("ul");
    (d.items || []).forEach(function (it) { ul.appendChild(el("li", { text: it.where + ": " + it.text })); });
    Object.keys(d.archived || {}).forEach(function (k) {
      d.archived[k].forEach(function (it) { ul.appendChild(el("li", { text: k + " (archived " + String(it.timestamp || "").slice(0, 10) + "): " + (it.topic ? it.topic + ": " : "") + it.content })); });
    });
    (d.episodes || []).forEach(function (it) { ul.appendChild(el("li", { text: "episode (" + String(it.created_at || "").slice(0, 10) + "): " + it.content })); });
    box.appendChild(ul);
  }

  document.getElementById("search-form").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var q = document.getElementById("q").value.trim();
    var box = document.getElementById("results");
    if (!q) return;
    box.textContent = "searching…";
    fetch("/api/search?q=" + encodeURIComponent(q)).then(function (r) {
      return r.json().then(function (j) { if (!r.ok) throw new Error(j.error || ("HTTP " + r.status)); return j; });
    }).then(function (d) { showResults(q, d); }).catch(function (err) {
      box.textContent = "";
      box.appendChild(el("div", { cls: "error", text: "search failed: " + err.message }));
    });
  });

  // due reminders as they happen (server-sent events, GET /api/reminders)
  function reminders() {
    if (typeof EventSource === "undefined") return;
    var src = new EventSource("/api/reminders");
    src.addEventListener("reminder", function (ev) {
      var r;
      try { r = JSON.parse(ev.data); } catch (e) { return; }
      var empty = document.getElementById("reminders-empty");
      if (empty) empty.parentNode.removeChild(empty);
      var list = document.getElementById("reminder-list");
      var cls = "item reminder tier-" + r.tier + (r.missed ? " missed" : "");
      list.insertBefore(el("li", { cls: cls, "data-tier": r.tier }, [el("time", { text: r.datetime }), el("span", { cls: "badge", text: r.missed ? "missed" : r.tier }), el("span", { cls: "text", text: r.say || r.content })]), list.firstChild);
    });
  }

  load();
  reminders();
})();
</script>
</body>
</html>
`;
