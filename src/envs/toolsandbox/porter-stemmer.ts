/**
 * The Porter stemmer exactly as NLTK's `PorterStemmer()` runs it (mode `NLTK_EXTENSIONS`), which `rouge_score` uses
 * for ROUGE-L with `use_stemmer=True`. Written by hand: the npm stemmers implement the original algorithm or Porter2,
 * whose stems differ from NLTK's (`dying`, `-ies`, `-alli`, `-logi`, step 1c), and ToolSandbox's scores depend on them.
 */

const VOWELS = new Set(["a", "e", "i", "o", "u"]);

const IRREGULAR_FORMS: Record<string, readonly string[]> = {
  sky: ["sky", "skies"],
  die: ["dying"],
  lie: ["lying"],
  tie: ["tying"],
  news: ["news"],
  inning: ["innings", "inning"],
  outing: ["outings", "outing"],
  canning: ["cannings", "canning"],
  howe: ["howe"],
  proceed: ["proceed"],
  exceed: ["exceed"],
  succeed: ["succeed"],
};
const POOL = new Map<string, string>(Object.entries(IRREGULAR_FORMS).flatMap(([stem, forms]) => forms.map((form) => [form, stem] as [string, string])));

function isConsonant(word: string, index: number): boolean {
  const letter = word[index] as string;
  if (VOWELS.has(letter)) return false;
  if (letter === "y") {
    let negate = false;
    let position = index;
    while (position > 0 && word[position] === "y") {
      negate = !negate;
      position -= 1;
    }
    return !VOWELS.has(word[position] as string) !== negate;
  }
  return true;
}

function consonantFlags(word: string): boolean[] {
  const flags: boolean[] = [];
  for (let index = 0; index < word.length; index++) {
    const letter = word[index] as string;
    if (VOWELS.has(letter)) flags.push(false);
    else if (letter === "y") flags.push(index === 0 ? true : !(flags[index - 1] as boolean));
    else flags.push(true);
  }
  return flags;
}

function measure(stem: string): number {
  const sequence = consonantFlags(stem).map((consonant) => (consonant ? "c" : "v")).join("");
  return sequence.split("vc").length - 1;
}

const positiveMeasure = (stem: string): boolean => measure(stem) > 0;
const containsVowel = (stem: string): boolean => !consonantFlags(stem).every(Boolean);

function endsDoubleConsonant(word: string): boolean {
  return word.length >= 2 && word[word.length - 1] === word[word.length - 2] && isConsonant(word, word.length - 1);
}

function endsCvc(word: string): boolean {
  const n = word.length;
  return (
    (n >= 3 && isConsonant(word, n - 3) && !isConsonant(word, n - 2) && isConsonant(word, n - 1) && !["w", "x", "y"].includes(word[n - 1] as string)) ||
    (n === 2 && !isConsonant(word, 0) && isConsonant(word, 1))
  );
}

function replaceSuffix(word: string, suffix: string, replacement: string): string {
  return suffix === "" ? word + replacement : word.slice(0, word.length - suffix.length) + replacement;
}

type Rule = readonly [suffix: string, replacement: string, condition: ((stem: string) => boolean) | null];

function applyRuleList(word: string, rules: readonly Rule[]): string {
  for (const [suffix, replacement, condition] of rules) {
    if (suffix === "*d" && endsDoubleConsonant(word)) {
      const stem = word.slice(0, -2);
      return condition === null || condition(stem) ? stem + replacement : word;
    }
    if (word.endsWith(suffix)) {
      const stem = replaceSuffix(word, suffix, "");
      return condition === null || condition(stem) ? stem + replacement : word;
    }
  }
  return word;
}

function step1a(word: string): string {
  if (word.endsWith("ies") && word.length === 4) return replaceSuffix(word, "ies", "ie");
  return applyRuleList(word, [
    ["sses", "ss", null],
    ["ies", "i", null],
    ["ss", "ss", null],
    ["s", "", null],
  ]);
}

function step1b(word: string): string {
  if (word.endsWith("ied")) return replaceSuffix(word, "ied", word.length === 4 ? "ie" : "i");
  if (word.endsWith("eed")) {
    const stem = replaceSuffix(word, "eed", "");
    return measure(stem) > 0 ? stem + "ee" : word;
  }
  let intermediate: string | undefined;
  for (const suffix of ["ed", "ing"]) {
    if (word.endsWith(suffix)) {
      const candidate = replaceSuffix(word, suffix, "");
      if (containsVowel(candidate)) {
        intermediate = candidate;
        break;
      }
    }
  }
  if (intermediate === undefined) return word;
  const last = intermediate[intermediate.length - 1] as string;
  return applyRuleList(intermediate, [
    ["at", "ate", null],
    ["bl", "ble", null],
    ["iz", "ize", null],
    ["*d", last, () => !["l", "s", "z"].includes(last)],
    ["", "e", (stem) => measure(stem) === 1 && endsCvc(stem)],
  ]);
}

function step1c(word: string): string {
  return applyRuleList(word, [["y", "i", (stem) => stem.length > 1 && isConsonant(stem, stem.length - 1)]]);
}

function step2(word: string): string {
  if (word.endsWith("alli") && positiveMeasure(replaceSuffix(word, "alli", ""))) return step2(replaceSuffix(word, "alli", "al"));
  return applyRuleList(word, [
    ["ational", "ate", positiveMeasure],
    ["tional", "tion", positiveMeasure],
    ["enci", "ence", positiveMeasure],
    ["anci", "ance", positiveMeasure],
    ["izer", "ize", positiveMeasure],
    ["bli", "ble", positiveMeasure],
    ["alli", "al", positiveMeasure],
    ["entli", "ent", positiveMeasure],
    ["eli", "e", positiveMeasure],
    ["ousli", "ous", positiveMeasure],
    ["ization", "ize", positiveMeasure],
    ["ation", "ate", positiveMeasure],
    ["ator", "ate", positiveMeasure],
    ["alism", "al", positiveMeasure],
    ["iveness", "ive", positiveMeasure],
    ["fulness", "ful", positiveMeasure],
    ["ousness", "ous", positiveMeasure],
    ["aliti", "al", positiveMeasure],
    ["iviti", "ive", positiveMeasure],
    ["biliti", "ble", positiveMeasure],
    ["fulli", "ful", positiveMeasure],
    ["logi", "log", () => positiveMeasure(word.slice(0, -3))],
  ]);
}

function step3(word: string): string {
  return applyRuleList(word, [
    ["icate", "ic", positiveMeasure],
    ["ative", "", positiveMeasure],
    ["alize", "al", positiveMeasure],
    ["iciti", "ic", positiveMeasure],
    ["ical", "ic", positiveMeasure],
    ["ful", "", positiveMeasure],
    ["ness", "", positiveMeasure],
  ]);
}

function step4(word: string): string {
  const greaterThanOne = (stem: string): boolean => measure(stem) > 1;
  return applyRuleList(word, [
    ["al", "", greaterThanOne],
    ["ance", "", greaterThanOne],
    ["ence", "", greaterThanOne],
    ["er", "", greaterThanOne],
    ["ic", "", greaterThanOne],
    ["able", "", greaterThanOne],
    ["ible", "", greaterThanOne],
    ["ant", "", greaterThanOne],
    ["ement", "", greaterThanOne],
    ["ment", "", greaterThanOne],
    ["ent", "", greaterThanOne],
    ["ion", "", (stem) => measure(stem) > 1 && ["s", "t"].includes(stem[stem.length - 1] as string)],
    ["ou", "", greaterThanOne],
    ["ism", "", greaterThanOne],
    ["ate", "", greaterThanOne],
    ["iti", "", greaterThanOne],
    ["ous", "", greaterThanOne],
    ["ive", "", greaterThanOne],
    ["ize", "", greaterThanOne],
  ]);
}

function step5a(word: string): string {
  if (word.endsWith("e")) {
    const stem = replaceSuffix(word, "e", "");
    if (measure(stem) > 1) return stem;
    if (measure(stem) === 1 && !endsCvc(stem)) return stem;
  }
  return word;
}

function step5b(word: string): string {
  return applyRuleList(word, [["ll", "l", () => measure(word.slice(0, -1)) > 1]]);
}

/** NLTK's `PorterStemmer().stem(word)` (lower-cases first). */
export function porterStem(word: string): string {
  let stem = word.toLowerCase();
  const irregular = POOL.get(stem);
  if (irregular !== undefined) return irregular;
  if (word.length <= 2) return stem;
  stem = step1a(stem);
  stem = step1b(stem);
  stem = step1c(stem);
  stem = step2(stem);
  stem = step3(stem);
  stem = step4(stem);
  stem = step5a(stem);
  stem = step5b(stem);
  return stem;
}
