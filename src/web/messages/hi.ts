// Hindi. Same keys as en.ts, checked by the Catalogue type.
import type { Catalogue } from "./catalogue.js";

export const hi: Catalogue = {
  // ---- common.* (both sites) ----
  "common.brand": "LP Partners",
  "common.skipToContent": "मुख्य सामग्री पर जाएँ",
  "common.language": "भाषा",
  "common.languageName": "हिन्दी",
  "common.siteNavigation": "साइट",
  "common.signOut": "साइन आउट करें",
  "common.notFoundTitle": "पेज नहीं मिला",
  "common.notFoundText": "इस पते पर कोई पेज नहीं है।",
  "common.methodNotAllowedTitle": "यह तरीका अनुमत नहीं है",
  "common.methodNotAllowedText": "यह पेज इस तरीके को स्वीकार नहीं करता।",
  "common.refusedTitle": "अनुरोध अस्वीकार किया गया",
  "common.formExpired": "फ़ॉर्म की समय-सीमा समाप्त हो गई। वापस जाएँ और फिर से कोशिश करें।",
  "common.otherSite": "यह फ़ॉर्म किसी दूसरी साइट से भेजा गया था।",
  "common.badRequestTitle": "अमान्य अनुरोध",
  "common.formUnreadable": "फ़ॉर्म पढ़ा नहीं जा सका।",
  "common.unavailableTitle": "अस्थायी रूप से उपलब्ध नहीं",
  "common.internalTitle": "कुछ गलत हो गया",
  "common.errorCode": "त्रुटि कोड: {code}",
  "common.copy": "कॉपी करें",
  "common.copied": "कॉपी हो गया",
  "common.shownOnce": "केवल एक बार दिखाया जाता है: इसे अभी कॉपी करें। इसे दोबारा नहीं दिखाया जा सकता।",
  "common.required": "आवश्यक",
  "common.back": "वापस",

  // ---- consent.* (the consent site) ----

  // ---- end of consent.* ----

  // ---- console.* (the developer console) ----
  "console.section": "डेवलपर कंसोल",
};
