// Arabic (read right to left: the page shell sets dir="rtl"). Same keys as en.ts, checked by the Catalogue type.
import type { Catalogue } from "./catalogue.js";

export const ar: Catalogue = {
  // ---- common.* (both sites) ----
  "common.brand": "LP Partners",
  "common.skipToContent": "انتقل إلى المحتوى الرئيسي",
  "common.language": "اللغة",
  "common.languageName": "العربية",
  "common.siteNavigation": "الموقع",
  "common.signOut": "تسجيل الخروج",
  "common.notFoundTitle": "الصفحة غير موجودة",
  "common.notFoundText": "لا توجد صفحة على هذا العنوان.",
  "common.methodNotAllowedTitle": "الطريقة غير مسموح بها",
  "common.methodNotAllowedText": "هذه الصفحة لا تقبل هذه الطريقة.",
  "common.refusedTitle": "تم رفض الطلب",
  "common.formExpired": "انتهت صلاحية النموذج. ارجع وحاول مرة أخرى.",
  "common.otherSite": "أُرسل هذا النموذج من موقع آخر.",
  "common.badRequestTitle": "طلب غير صالح",
  "common.formUnreadable": "تعذرت قراءة النموذج.",
  "common.unavailableTitle": "غير متاح مؤقتًا",
  "common.internalTitle": "حدث خطأ ما",
  "common.errorCode": "رمز الخطأ: {code}",
  "common.copy": "نسخ",
  "common.copied": "تم النسخ",
  "common.shownOnce": "يُعرض مرة واحدة: انسخه الآن. لا يمكن عرضه مرة أخرى.",
  "common.required": "مطلوب",
  "common.back": "رجوع",

  // ---- consent.* (the consent site) ----

  // ---- end of consent.* ----

  // ---- console.* (the developer console) ----
  "console.section": "وحدة تحكم المطورين",
};
