/* The search box in the header of every page. It shows only when the site has a Pagefind index
   beside its pages (`python3 -m pagefind --site <site>`, run after `locker build`): without one
   the box stays hidden and the page is as it was. Pagefind's UI searches the index of the page's
   language (<html lang>), and its results link to pages in that language. */
(function () {
  "use strict";
  var script = document.currentScript;
  var box = document.querySelector(".site-search");
  if (!script || !box || !window.fetch || !window.URL) return;
  // This script is the site's assets/<hash>.js: the site's root is the folder above it.
  var root = new URL("../", script.src);
  var bundle = new URL("pagefind/", root);
  // The site's own words for the box, in each of its languages (SiteStrings).
  var words = {"en":{"clear_search":"Clear","load_more":"More results","many_results":"[COUNT] results for “[SEARCH_TERM]”","one_result":"[COUNT] result for “[SEARCH_TERM]”","placeholder":"Search guides, checklists, cards","search_label":"Search this site","searching":"Searching for “[SEARCH_TERM]”…","zero_results":"Nothing found for “[SEARCH_TERM]”"},"ru":{"clear_search":"Очистить","load_more":"Ещё результаты","many_results":"По запросу «[SEARCH_TERM]» найдено: [COUNT]","one_result":"По запросу «[SEARCH_TERM]» найдено: [COUNT]","placeholder":"Поиск по руководствам, чек-листам, карточкам","search_label":"Поиск по сайту","searching":"Ищем «[SEARCH_TERM]»…","zero_results":"По запросу «[SEARCH_TERM]» ничего не найдено"}};
  fetch(new URL("pagefind-entry.json", bundle).href, { method: "HEAD", cache: "no-cache" })
    .then(function (response) { if (response.ok) load(); })
    .catch(function () {});

  function load() {
    var waiting = 2;
    var ready = function () { if (--waiting === 0) start(); };
    var sheet = document.createElement("link");
    sheet.rel = "stylesheet";
    sheet.href = new URL("pagefind-ui.css", bundle).href;
    sheet.onload = sheet.onerror = ready;
    var ui = document.createElement("script");
    ui.src = new URL("pagefind-ui.js", bundle).href;
    ui.onload = ready;
    document.head.appendChild(sheet);
    document.head.appendChild(ui);
  }

  function start() {
    new window.PagefindUI({
      element: box,
      bundlePath: bundle.pathname,
      baseUrl: root.pathname,
      showSubResults: true,
      showImages: false,
      translations: words[document.documentElement.lang] || {}
    });
    box.hidden = false;
  }
})();
