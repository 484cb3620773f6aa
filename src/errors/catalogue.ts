// The one table of error codes: for each code its HTTP status, gRPC code, OAuth `error`, headers and messages.
//
// Nothing else in the program knows a status or a message. Services raise a code with params
// (service-error.ts); the front renders it in its route family's shape (render.ts). A code that is not a key of
// `catalogue` does not compile. docs/error-codes.md says why each status the spec leaves open was chosen.
import { Code } from "@connectrpc/connect";
import type { Locale } from "./locale.js";

/**
 * The OAuth `error` values a code can render as: the five of the spec's token-endpoint table, the two of DPoP
 * (RFC 9449 sections 5 and 8: `invalid_dpop_proof`, `use_dpop_nonce`), plus the two RFC 6749 §4.1.2.1 names for
 * server failures (`server_error`, `temporarily_unavailable`).
 */
export type OAuthError =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "invalid_dpop_proof"
  | "use_dpop_nonce"
  | "server_error"
  | "temporarily_unavailable";

/**
 * How a param is rendered in a body's `params`: `number` params are JSON numbers, `string` params strings.
 * ErrorInfo metadata carries every param as a string; the kind restores numbers after a trip over the wire.
 */
export type ParamKind = "string" | "number";

/** One row of the catalogue. */
export interface CatalogueEntry {
  /** HTTP status in the developer and partner envelopes (the OAuth body derives its own: see oauthStatus). */
  readonly status: number;
  /** gRPC status code for internal callers. */
  readonly grpc: Code;
  /** OAuth `error` when rendered on /v1/oauth/*; absent means `invalid_request`. */
  readonly oauth?: OAuthError;
  /**
   * `false` for unclassified failures (validation, unexpected errors): the partner envelope omits `code` for
   * them. Absent means classified (a documented failure).
   */
  readonly classified?: false;
  /** The params every message template uses, with their kinds; absent means none. */
  readonly params?: Readonly<Record<string, ParamKind>>;
  /**
   * Response headers this code adds in every shape, as templates over its params (`{allow}`). A header whose
   * template names a param that was not supplied is left out.
   */
  readonly headers?: Readonly<Record<string, string>>;
  /** The message in each supported locale; `{param}` is replaced by the param's value. */
  readonly messages: Readonly<Record<Locale, string>>;
}

/** Every error code the service can answer with. */
export const catalogue = {
  // ---------------------------------------------------------------- OAuth token endpoint (spec table)
  "oauth.invalid_request": {
    status: 400,
    grpc: Code.InvalidArgument,
    oauth: "invalid_request",
    params: { fields: "string" },
    messages: {
      en: "The request is missing a required field or has a malformed one: {fields}.",
      ar: "الطلب ينقصه حقل مطلوب أو يحتوي على حقل بصيغة غير صحيحة: {fields}.",
      hi: "अनुरोध में कोई आवश्यक फ़ील्ड नहीं है या कोई फ़ील्ड ग़लत प्रारूप में है: {fields}।",
    },
  },
  "oauth.unsupported_grant_type": {
    status: 400,
    grpc: Code.InvalidArgument,
    oauth: "unsupported_grant_type",
    messages: {
      en: "This grant type is not supported. Use authorization_code, refresh_token or, with sandbox credentials, client_credentials.",
      ar: "نوع المنح هذا غير مدعوم. استخدم \u2066authorization_code\u2069 أو \u2066refresh_token\u2069، أو \u2066client_credentials\u2069 مع بيانات اعتماد بيئة الاختبار.",
      hi: "यह grant type समर्थित नहीं है। authorization_code, refresh_token या, sandbox क्रेडेंशियल के साथ, client_credentials का उपयोग करें।",
    },
  },
  "oauth.code_invalid": {
    status: 400,
    grpc: Code.InvalidArgument,
    oauth: "invalid_grant",
    messages: {
      en: "The authorization code is unknown or has already been used.",
      ar: "رمز التفويض غير معروف أو سبق استخدامه.",
      hi: "प्राधिकरण कोड अज्ञात है या पहले ही उपयोग किया जा चुका है।",
    },
  },
  "oauth.code_expired": {
    status: 400,
    grpc: Code.FailedPrecondition,
    oauth: "invalid_grant",
    messages: {
      en: "The authorization code has expired. Start the authorization again.",
      ar: "انتهت صلاحية رمز التفويض. ابدأ عملية التفويض من جديد.",
      hi: "प्राधिकरण कोड की समय-सीमा समाप्त हो गई है। प्राधिकरण फिर से शुरू करें।",
    },
  },
  // Also a consent-screen code (authorize with an unregistered redirect_uri): one code, one status, both places.
  "oauth.redirect_uri_mismatch": {
    status: 400,
    grpc: Code.InvalidArgument,
    oauth: "invalid_grant",
    messages: {
      en: "The redirect_uri does not exactly match the registered redirect URI.",
      ar: "لا يطابق \u2066redirect_uri\u2069 عنوان إعادة التوجيه المسجَّل تطابقًا تامًا.",
      hi: "redirect_uri पंजीकृत redirect URI से पूरी तरह मेल नहीं खाता।",
    },
  },
  "oauth.pkce_failed": {
    status: 400,
    grpc: Code.InvalidArgument,
    oauth: "invalid_grant",
    messages: {
      en: "The code_verifier is missing or does not match the code challenge.",
      ar: "قيمة \u2066code_verifier\u2069 مفقودة أو لا تطابق رمز التحدي.",
      hi: "code_verifier मौजूद नहीं है या code challenge से मेल नहीं खाता।",
    },
  },
  "oauth.refresh_invalid": {
    status: 400,
    grpc: Code.InvalidArgument,
    oauth: "invalid_grant",
    messages: {
      en: "The refresh token is not recognised.",
      ar: "رمز التحديث غير معروف.",
      hi: "रिफ़्रेश टोकन पहचाना नहीं गया।",
    },
  },
  "oauth.refresh_expired": {
    status: 400,
    grpc: Code.FailedPrecondition,
    oauth: "invalid_grant",
    messages: {
      en: "The refresh token has expired because it was not used in time. The merchant must connect the app again.",
      ar: "انتهت صلاحية رمز التحديث لعدم استخدامه في الوقت المحدد. يجب على التاجر ربط التطبيق من جديد.",
      hi: "रिफ़्रेश टोकन समय पर उपयोग न होने के कारण समाप्त हो गया है। व्यापारी को ऐप फिर से कनेक्ट करना होगा।",
    },
  },
  "oauth.refresh_reused": {
    status: 400,
    grpc: Code.FailedPrecondition,
    oauth: "invalid_grant",
    messages: {
      en: "This refresh token was already replaced. For safety the connection has been revoked; the merchant must connect the app again.",
      ar: "سبق استبدال رمز التحديث هذا. أُلغي الاتصال حفاظًا على الأمان، ويجب على التاجر ربط التطبيق من جديد.",
      hi: "यह रिफ़्रेश टोकन पहले ही बदला जा चुका है। सुरक्षा के लिए कनेक्शन रद्द कर दिया गया है; व्यापारी को ऐप फिर से कनेक्ट करना होगा।",
    },
  },
  "oauth.code_replayed": {
    status: 400,
    grpc: Code.FailedPrecondition,
    oauth: "invalid_grant",
    messages: {
      en: "The authorization code of this connection was used more than once. For safety the connection has been revoked; the merchant must connect the app again.",
      ar: "استُخدم رمز التفويض لهذا الاتصال أكثر من مرة. أُلغي الاتصال حفاظًا على الأمان، ويجب على التاجر ربط التطبيق من جديد.",
      hi: "इस कनेक्शन का ऑथराइज़ेशन कोड एक से अधिक बार उपयोग किया गया। सुरक्षा के लिए कनेक्शन रद्द कर दिया गया है; व्यापारी को ऐप फिर से कनेक्ट करना होगा।",
    },
  },
  "oauth.grant_revoked": {
    status: 400,
    grpc: Code.FailedPrecondition,
    oauth: "invalid_grant",
    messages: {
      en: "Access was revoked. The merchant must connect the app again.",
      ar: "تم إلغاء الوصول. يجب على التاجر ربط التطبيق من جديد.",
      hi: "पहुँच रद्द कर दी गई है। व्यापारी को ऐप फिर से कनेक्ट करना होगा।",
    },
  },
  "oauth.ip_denied": {
    // The presented credential has an IP allowlist without the caller's address: its authentication fails here
    // (RFC 6749 §5.2 invalid_client, 401 with a scheme), told apart by the code. Only after the secret matched.
    status: 401,
    grpc: Code.Unauthenticated,
    oauth: "invalid_client",
    headers: { "WWW-Authenticate": "Basic" },
    messages: {
      en: "Requests from this IP address are not allowed for this client credential.",
      ar: "الطلبات من عنوان \u2066IP\u2069 هذا غير مسموح بها لبيانات اعتماد العميل هذه.",
      hi: "इस क्लाइंट क्रेडेंशियल के लिए इस IP पते से अनुरोध की अनुमति नहीं है।",
    },
  },
  "oauth.rate_limited": {
    status: 429,
    grpc: Code.ResourceExhausted,
    oauth: "invalid_request",
    params: { retryAfter: "number" },
    headers: { "Retry-After": "{retryAfter}" },
    messages: {
      en: "Too many token requests. Wait {retryAfter} seconds before trying again.",
      ar: "طلبات رموز كثيرة جدًا. انتظر {retryAfter} ثانية قبل المحاولة مرة أخرى.",
      hi: "बहुत अधिक टोकन अनुरोध। फिर से प्रयास करने से पहले {retryAfter} सेकंड प्रतीक्षा करें।",
    },
  },

  // ---------------------------------------------------------------- DPoP at the token endpoints (RFC 9449)
  "oauth.dpop_proof_invalid": {
    status: 400,
    grpc: Code.InvalidArgument,
    oauth: "invalid_dpop_proof",
    messages: {
      en: "The DPoP proof is malformed, not for this request, too old or already used. Send a new proof signed with the client's key.",
      ar: "إثبات \u2066DPoP\u2069 غير صالح الصيغة أو لا يخص هذا الطلب أو قديم جدًا أو سبق استخدامه. أرسل إثباتًا جديدًا موقّعًا بمفتاح العميل.",
      hi: "DPoP प्रमाण ग़लत प्रारूप में है, इस अनुरोध के लिए नहीं है, बहुत पुराना है या पहले ही उपयोग हो चुका है। क्लाइंट की कुंजी से हस्ताक्षरित नया प्रमाण भेजें।",
    },
  },
  "oauth.dpop_nonce_required": {
    status: 400,
    grpc: Code.FailedPrecondition,
    oauth: "use_dpop_nonce",
    params: { nonce: "string" },
    headers: { "DPoP-Nonce": "{nonce}" },
    messages: {
      en: "Send the DPoP proof again with the nonce {nonce} (also in the DPoP-Nonce header).",
      ar: "أرسل إثبات \u2066DPoP\u2069 مرة أخرى مع القيمة {nonce} (موجودة أيضًا في ترويسة \u2066DPoP-Nonce\u2069).",
      hi: "DPoP प्रमाण को nonce {nonce} के साथ फिर से भेजें (यह DPoP-Nonce हेडर में भी है)।",
    },
  },
  "oauth.dpop_key_mismatch": {
    status: 400,
    grpc: Code.FailedPrecondition,
    oauth: "invalid_dpop_proof",
    messages: {
      en: "This refresh token or code is bound to a DPoP key: send a DPoP proof signed with that key.",
      ar: "رمز التحديث أو الرمز هذا مرتبط بمفتاح \u2066DPoP\u2069: أرسل إثبات \u2066DPoP\u2069 موقّعًا بذلك المفتاح.",
      hi: "यह रिफ़्रेश टोकन या कोड एक DPoP कुंजी से बंधा है: उसी कुंजी से हस्ताक्षरित DPoP प्रमाण भेजें।",
    },
  },
  "oauth.dpop_required": {
    status: 400,
    grpc: Code.FailedPrecondition,
    oauth: "invalid_request",
    messages: {
      en: "This app requires DPoP: send a DPoP proof header with the token request.",
      ar: "يتطلب هذا التطبيق \u2066DPoP\u2069: أرسل ترويسة إثبات \u2066DPoP\u2069 مع طلب الرمز.",
      hi: "इस ऐप के लिए DPoP आवश्यक है: टोकन अनुरोध के साथ DPoP प्रमाण हेडर भेजें।",
    },
  },

  // ---------------------------------------------------------------- consent screen (shown, never redirected)
  "oauth.client_not_found": {
    status: 400,
    grpc: Code.InvalidArgument,
    oauth: "invalid_request",
    messages: {
      en: "No app matches this client_id.",
      ar: "لا يوجد تطبيق يطابق \u2066client_id\u2069 هذا.",
      hi: "इस client_id से कोई ऐप मेल नहीं खाता।",
    },
  },
  "oauth.state_required": {
    status: 400,
    grpc: Code.InvalidArgument,
    oauth: "invalid_request",
    messages: {
      en: "The state parameter is required.",
      ar: "المعامل \u2066state\u2069 مطلوب.",
      hi: "state पैरामीटर आवश्यक है।",
    },
  },
  "oauth.pkce_method_unsupported": {
    status: 400,
    grpc: Code.InvalidArgument,
    oauth: "invalid_request",
    messages: {
      en: "Only the S256 code_challenge_method is supported.",
      ar: "طريقة \u2066code_challenge_method\u2069 المدعومة هي \u2066S256\u2069 فقط.",
      hi: "केवल S256 code_challenge_method समर्थित है।",
    },
  },
  // response_mode (OAuth 2.0 Multiple Response Types section 2.1): only `query`, the default of the code flow; a
  // fragment or form_post answer would reach a client that never asked for it. Shown on the page, never redirected.
  "oauth.unsupported_response_mode": {
    status: 400,
    grpc: Code.InvalidArgument,
    oauth: "invalid_request",
    messages: {
      en: "Only the query response_mode is supported.",
      ar: "طريقة \u2066response_mode\u2069 المدعومة هي \u2066query\u2069 فقط.",
      hi: "केवल query response_mode समर्थित है।",
    },
  },
  // RFC 9126 section 4: a request_uri that is unknown, expired, used up by a consent decision, or pushed by another
  // client; one code for all four, so a stolen or guessed value tells nothing. Shown on the consent page, never
  // redirected (the pushed redirect_uri cannot be trusted without the request).
  "oauth.invalid_request_uri": {
    status: 400,
    grpc: Code.InvalidArgument,
    oauth: "invalid_request",
    messages: {
      en: "This authorization request is no longer valid: it has expired, was already used, or belongs to another app. Return to the app and start again.",
      ar: "طلب التفويض هذا لم يعد صالحًا: انتهت صلاحيته أو استُخدم من قبل أو يخص تطبيقًا آخر. ارجع إلى التطبيق وابدأ من جديد.",
      hi: "यह प्राधिकरण अनुरोध अब मान्य नहीं है: इसकी समय-सीमा समाप्त हो गई है, इसका उपयोग हो चुका है, या यह किसी दूसरे ऐप का है। ऐप पर लौटकर फिर से शुरू करें।",
    },
  },
  // RFC 9126 section 5: an app that requires pushed authorization requests sent its parameters on the URL.
  "oauth.pushed_request_required": {
    status: 400,
    grpc: Code.FailedPrecondition,
    oauth: "invalid_request",
    messages: {
      en: "This app must push its authorization request first (POST /v1/oauth/par) and send only client_id and request_uri here.",
      ar: "يجب أن يرسل هذا التطبيق طلب التفويض أولًا (\u2066POST /v1/oauth/par\u2069) وألا يرسل هنا إلا \u2066client_id\u2069 و\u2066request_uri\u2069.",
      hi: "इस ऐप को पहले अपना प्राधिकरण अनुरोध भेजना होगा (POST /v1/oauth/par) और यहाँ केवल client_id और request_uri भेजने होंगे।",
    },
  },
  "oauth.app_not_published": {
    status: 403,
    grpc: Code.PermissionDenied,
    oauth: "unauthorized_client",
    messages: {
      en: "This app is not yet approved for production use.",
      ar: "لم تتم الموافقة على هذا التطبيق للاستخدام في بيئة الإنتاج بعد.",
      hi: "यह ऐप अभी प्रोडक्शन उपयोग के लिए स्वीकृत नहीं है।",
    },
  },
  "oauth.company_not_eligible": {
    status: 403,
    grpc: Code.PermissionDenied,
    oauth: "unauthorized_client",
    messages: {
      // Every cause the consent site refuses with this code (spec, authorize 6; grant/authorization.ts, eligibility):
      // a sandbox client and a live company, or another organization's sandbox merchant; a production client and a
      // demo company; an inactive merchant. The message names the rule, so each of them reads true.
      en: "This company cannot be connected to this app: a sandbox app connects only the active sandbox merchants of its own organization, and a production app only active live companies.",
      ar: "لا يمكن ربط هذه الشركة بهذا التطبيق: تطبيق الاختبار (\u2066sandbox\u2069) لا يتصل إلا بتجار الاختبار النشطين التابعين لمؤسسته هو، وتطبيق الإنتاج (\u2066production\u2069) لا يتصل إلا بالشركات الحقيقية النشطة.",
      hi: "इस कंपनी को इस ऐप से कनेक्ट नहीं किया जा सकता: sandbox ऐप केवल अपने ही संगठन के सक्रिय sandbox व्यापारियों से और production ऐप केवल सक्रिय लाइव कंपनियों से कनेक्ट होता है।",
    },
  },

  // ---------------------------------------------------------------- developer: account and program
  "developer.email_not_verified": {
    status: 403,
    grpc: Code.PermissionDenied,
    messages: {
      en: "Verify your email address before signing in: open the link we sent you.",
      ar: "يرجى تأكيد بريدك الإلكتروني قبل تسجيل الدخول، وذلك بفتح الرابط الذي أرسلناه إليك.",
      hi: "साइन इन करने से पहले अपना ईमेल पता सत्यापित करें: हमारे भेजे गए लिंक को खोलें।",
    },
  },
  "developer.too_many_attempts": {
    status: 429,
    grpc: Code.ResourceExhausted,
    params: { retryAfter: "number" },
    headers: { "Retry-After": "{retryAfter}" },
    messages: {
      en: "Too many failed sign-in attempts. Sign-in is locked; try again in {retryAfter} seconds.",
      ar: "محاولات تسجيل دخول فاشلة كثيرة. تسجيل الدخول مقفل؛ حاول مرة أخرى بعد {retryAfter} ثانية.",
      hi: "साइन इन के बहुत से असफल प्रयास। साइन इन लॉक है; {retryAfter} सेकंड बाद फिर से प्रयास करें।",
    },
  },
  "developer.account_suspended": {
    status: 403,
    grpc: Code.PermissionDenied,
    messages: {
      en: "This developer account is suspended.",
      ar: "حساب المطوّر هذا موقوف.",
      hi: "यह डेवलपर खाता निलंबित है।",
    },
  },
  "developer.refresh_reuse_detected": {
    status: 401,
    grpc: Code.Unauthenticated,
    messages: {
      en: "This session was ended because its refresh token was used twice. Sign in again.",
      ar: "تم إنهاء هذه الجلسة لأن رمز التحديث الخاص بها استُخدم مرتين. سجّل الدخول مجددًا.",
      hi: "यह सत्र समाप्त कर दिया गया क्योंकि इसका रिफ़्रेश टोकन दो बार उपयोग हुआ। फिर से साइन इन करें।",
    },
  },
  "developer.nda_required": {
    status: 403,
    grpc: Code.PermissionDenied,
    messages: {
      en: "Submit a partner program application first.",
      ar: "قدّم طلب الانضمام إلى برنامج الشركاء أولًا.",
      hi: "पहले पार्टनर प्रोग्राम के लिए आवेदन जमा करें।",
    },
  },
  "developer.nda_already_submitted": {
    status: 409,
    grpc: Code.AlreadyExists,
    messages: {
      en: "A program application is already pending.",
      ar: "يوجد طلب انضمام إلى البرنامج قيد المراجعة بالفعل.",
      hi: "प्रोग्राम का एक आवेदन पहले से लंबित है।",
    },
  },
  "developer.nda_not_approved": {
    status: 403,
    grpc: Code.PermissionDenied,
    messages: {
      en: "Your program application has not been approved.",
      ar: "لم تتم الموافقة على طلب انضمامك إلى البرنامج.",
      hi: "आपका प्रोग्राम आवेदन स्वीकृत नहीं हुआ है।",
    },
  },
  "developer.agreement_required": {
    status: 403,
    grpc: Code.PermissionDenied,
    messages: {
      en: "Sign the developer agreement to continue.",
      ar: "وقّع اتفاقية المطوّرين للمتابعة.",
      hi: "जारी रखने के लिए डेवलपर अनुबंध पर हस्ताक्षर करें।",
    },
  },
  "developer.agreement_version_stale": {
    status: 409,
    grpc: Code.FailedPrecondition,
    messages: {
      en: "This version of the developer agreement is no longer current. Sign the current version.",
      ar: "لم يعد هذا الإصدار من اتفاقية المطوّرين ساريًا. وقّع الإصدار الحالي.",
      hi: "डेवलपर अनुबंध का यह संस्करण अब मान्य नहीं है। वर्तमान संस्करण पर हस्ताक्षर करें।",
    },
  },

  // ---------------------------------------------------------------- developer: organizations
  "developer.not_org_member": {
    status: 403,
    grpc: Code.PermissionDenied,
    messages: {
      en: "You are not a member of this organization.",
      ar: "أنت لست عضوًا في هذه المؤسسة.",
      hi: "आप इस संगठन के सदस्य नहीं हैं।",
    },
  },
  "developer.insufficient_org_role": {
    status: 403,
    grpc: Code.PermissionDenied,
    messages: {
      en: "Your role in this organization does not allow this action.",
      ar: "دورك في هذه المؤسسة لا يسمح بهذا الإجراء.",
      hi: "इस संगठन में आपकी भूमिका इस कार्य की अनुमति नहीं देती।",
    },
  },
  "developer.owner_immutable": {
    status: 409,
    grpc: Code.FailedPrecondition,
    messages: {
      en: "The organization owner cannot be removed or given a lower role.",
      ar: "لا يمكن إزالة مالك المؤسسة أو تخفيض دوره.",
      hi: "संगठन के स्वामी को हटाया नहीं जा सकता और न ही उसकी भूमिका घटाई जा सकती है।",
    },
  },
  "developer.invite_invalid": {
    status: 400,
    grpc: Code.InvalidArgument,
    messages: {
      en: "This invitation link is not valid or has already been used.",
      ar: "رابط الدعوة هذا غير صالح أو سبق استخدامه.",
      hi: "यह आमंत्रण लिंक अमान्य है या पहले ही उपयोग हो चुका है।",
    },
  },
  "developer.invite_expired": {
    status: 400,
    grpc: Code.FailedPrecondition,
    messages: {
      en: "This invitation link has expired. Ask for a new invitation.",
      ar: "انتهت صلاحية رابط الدعوة هذا. اطلب دعوة جديدة.",
      hi: "इस आमंत्रण लिंक की समय-सीमा समाप्त हो गई है। नया आमंत्रण माँगें।",
    },
  },
  "developer.invite_revoked": {
    status: 400,
    grpc: Code.FailedPrecondition,
    messages: {
      en: "This invitation was withdrawn by the organization. Ask them for a new invitation if you still need one.",
      ar: "سحبت المؤسسة هذه الدعوة. اطلب منها دعوة جديدة إن كنت لا تزال بحاجة إليها.",
      hi: "संगठन ने यह आमंत्रण वापस ले लिया है। यदि आपको अब भी ज़रूरत है, तो उनसे नया आमंत्रण माँगें।",
    },
  },
  "developer.invite_superseded": {
    status: 400,
    grpc: Code.FailedPrecondition,
    messages: {
      en: "This invitation was sent again: this link no longer works. Open the link in the newest invitation mail.",
      ar: "أُرسلت هذه الدعوة مرة أخرى، ولم يعد هذا الرابط يعمل. افتح الرابط الموجود في أحدث رسالة دعوة.",
      hi: "यह आमंत्रण दोबारा भेजा गया है: यह लिंक अब काम नहीं करता। सबसे नए आमंत्रण ईमेल का लिंक खोलें।",
    },
  },
  "developer.invite_email_mismatch": {
    status: 403,
    grpc: Code.PermissionDenied,
    messages: {
      en: "This invitation was sent to a different email address than the one you are signed in with.",
      ar: "أُرسلت هذه الدعوة إلى بريد إلكتروني يختلف عن البريد الذي سجّلت الدخول به.",
      hi: "यह आमंत्रण उस ईमेल पते से अलग पते पर भेजा गया था जिससे आपने साइन इन किया है।",
    },
  },

  // ---------------------------------------------------------------- developer: console (ours; docs/error-codes.md)
  "developer.unauthenticated": {
    status: 401,
    grpc: Code.Unauthenticated,
    headers: { "WWW-Authenticate": "Bearer" },
    messages: {
      en: "Sign in to the console: send a valid console access token.",
      ar: "سجّل الدخول إلى وحدة التحكم: أرسل رمز وصول صالحًا لوحدة التحكم.",
      hi: "कंसोल में साइन इन करें: एक मान्य कंसोल एक्सेस टोकन भेजें।",
    },
  },
  "developer.sign_in_failed": {
    status: 401,
    grpc: Code.Unauthenticated,
    messages: {
      en: "The email or password is not correct.",
      ar: "البريد الإلكتروني أو كلمة المرور غير صحيحة.",
      hi: "ईमेल या पासवर्ड सही नहीं है।",
    },
  },
  "developer.refresh_invalid": {
    status: 401,
    grpc: Code.Unauthenticated,
    messages: {
      en: "This console session has ended. Sign in again.",
      ar: "انتهت جلسة وحدة التحكم هذه. سجّل الدخول مجددًا.",
      hi: "यह कंसोल सत्र समाप्त हो गया है। फिर से साइन इन करें।",
    },
  },
  "developer.password_too_weak": {
    status: 400,
    grpc: Code.InvalidArgument,
    params: { rule: "string" },
    messages: {
      en: "Choose a stronger password ({rule}).",
      ar: "اختر كلمة مرور أقوى ({rule}).",
      hi: "एक मज़बूत पासवर्ड चुनें ({rule})।",
    },
  },
  "developer.link_invalid": {
    status: 400,
    grpc: Code.InvalidArgument,
    messages: {
      en: "This link is not valid or has already been used.",
      ar: "هذا الرابط غير صالح أو سبق استخدامه.",
      hi: "यह लिंक अमान्य है या पहले ही उपयोग हो चुका है।",
    },
  },
  "developer.link_expired": {
    status: 400,
    grpc: Code.FailedPrecondition,
    messages: {
      en: "This link has expired. Ask for a new one.",
      ar: "انتهت صلاحية هذا الرابط. اطلب رابطًا جديدًا.",
      hi: "इस लिंक की समय-सीमा समाप्त हो गई है। नया लिंक माँगें।",
    },
  },
  "developer.account_not_found": {
    status: 404,
    grpc: Code.NotFound,
    messages: { en: "Developer account not found.", ar: "حساب المطوّر غير موجود.", hi: "डेवलपर खाता नहीं मिला।" },
  },
  "developer.program_application_not_found": {
    status: 404,
    grpc: Code.NotFound,
    messages: {
      en: "Program application not found.",
      ar: "طلب الانضمام إلى البرنامج غير موجود.",
      hi: "प्रोग्राम आवेदन नहीं मिला।",
    },
  },
  "developer.program_application_not_pending": {
    status: 409,
    grpc: Code.FailedPrecondition,
    params: { state: "string" },
    messages: {
      en: "This program application was already decided ({state}).",
      ar: "تم البت في طلب الانضمام هذا بالفعل ({state}).",
      hi: "इस प्रोग्राम आवेदन पर पहले ही निर्णय हो चुका है ({state})।",
    },
  },
  "developer.agreement_not_found": {
    status: 404,
    grpc: Code.NotFound,
    messages: {
      en: "No developer agreement is published yet.",
      ar: "لم تُنشر أي اتفاقية للمطوّرين بعد.",
      hi: "अभी तक कोई डेवलपर अनुबंध प्रकाशित नहीं हुआ है।",
    },
  },
  "developer.member_not_found": {
    status: 404,
    grpc: Code.NotFound,
    messages: {
      en: "Member not found in this organization.",
      ar: "العضو غير موجود في هذه المؤسسة.",
      hi: "इस संगठन में सदस्य नहीं मिला।",
    },
  },
  "developer.invitation_not_found": {
    status: 404,
    grpc: Code.NotFound,
    messages: {
      en: "Invitation not found in this organization.",
      ar: "الدعوة غير موجودة في هذه المؤسسة.",
      hi: "इस संगठन में आमंत्रण नहीं मिला।",
    },
  },
  "developer.invitation_not_pending": {
    status: 409,
    grpc: Code.FailedPrecondition,
    messages: {
      en: "This invitation is no longer pending: it was accepted, revoked or sent again meanwhile.",
      ar: "لم تعد هذه الدعوة معلّقة: فقد قُبلت أو سُحبت أو أُرسلت مرة أخرى في الأثناء.",
      hi: "यह आमंत्रण अब लंबित नहीं है: इस बीच इसे स्वीकार किया गया, वापस लिया गया या दोबारा भेजा गया।",
    },
  },
  "developer.invitation_pending": {
    status: 409,
    grpc: Code.AlreadyExists,
    messages: {
      en: "This email address already has a pending invitation to this organization. Send that invitation again from the list instead.",
      ar: "لهذا البريد الإلكتروني دعوة معلّقة بالفعل إلى هذه المؤسسة. أعد إرسال تلك الدعوة من القائمة بدلًا من ذلك.",
      hi: "इस ईमेल पते के लिए इस संगठन का एक लंबित आमंत्रण पहले से है। इसके बजाय सूची से वही आमंत्रण दोबारा भेजें।",
    },
  },
  "developer.already_org_member": {
    status: 409,
    grpc: Code.AlreadyExists,
    messages: {
      en: "You are already a member of this organization.",
      ar: "أنت عضو في هذه المؤسسة بالفعل.",
      hi: "आप पहले से ही इस संगठन के सदस्य हैं।",
    },
  },

  // ---------------------------------------------------------------- developer: apps, keys and sandbox
  "developer.product_immutable": {
    status: 409,
    grpc: Code.FailedPrecondition,
    messages: {
      en: "An app's product cannot be changed after it is created.",
      ar: "لا يمكن تغيير منتج التطبيق بعد إنشائه.",
      hi: "ऐप बनने के बाद उसका प्रोडक्ट बदला नहीं जा सकता।",
    },
  },
  "developer.app_archived": {
    status: 403,
    grpc: Code.PermissionDenied,
    oauth: "unauthorized_client",
    messages: {
      en: "This app is archived; its credentials can no longer obtain tokens.",
      ar: "هذا التطبيق مؤرشف، ولم يعد بإمكان بيانات اعتماده الحصول على رموز.",
      hi: "यह ऐप संग्रहीत (archived) है; इसके क्रेडेंशियल अब टोकन प्राप्त नहीं कर सकते।",
    },
  },
  "developer.app_not_approved": {
    status: 403,
    grpc: Code.PermissionDenied,
    oauth: "unauthorized_client",
    messages: {
      en: "This app needs review approval before it can be used in production.",
      ar: "يحتاج هذا التطبيق إلى موافقة المراجعة قبل استخدامه في بيئة الإنتاج.",
      hi: "प्रोडक्शन में उपयोग से पहले इस ऐप को समीक्षा में स्वीकृति चाहिए।",
    },
  },
  "developer.production_credentials_already_shown": {
    status: 409,
    grpc: Code.FailedPrecondition,
    messages: {
      en: "This app's production credentials were already shown; rotate the client secret to get a new one.",
      ar: "سبق عرض بيانات اعتماد الإنتاج لهذا التطبيق؛ قم بتدوير السر للحصول على سر جديد.",
      hi: "इस ऐप के प्रोडक्शन क्रेडेंशियल पहले ही दिखाए जा चुके हैं; नया पाने के लिए क्लाइंट सीक्रेट रोटेट करें।",
    },
  },
  "developer.review_not_in_review": {
    status: 409,
    grpc: Code.FailedPrecondition,
    messages: {
      en: "This app is not in review, so this review action is not possible.",
      ar: "هذا التطبيق ليس قيد المراجعة، لذا لا يمكن تنفيذ إجراء المراجعة هذا.",
      hi: "यह ऐप समीक्षा में नहीं है, इसलिए यह समीक्षा कार्रवाई संभव नहीं है।",
    },
  },
  "developer.sandbox_limit": {
    status: 409,
    grpc: Code.ResourceExhausted,
    messages: {
      en: "The organization already has the maximum number of active sandbox merchants.",
      ar: "لدى المؤسسة بالفعل الحد الأقصى من التجار النشطين في بيئة الاختبار.",
      hi: "संगठन के पास पहले से ही सक्रिय sandbox व्यापारियों की अधिकतम संख्या है।",
    },
  },
  "developer.sandbox_country_unknown": {
    status: 400,
    grpc: Code.InvalidArgument,
    messages: {
      en: "The country must be a supported two-letter ISO 3166-1 code.",
      ar: "يجب أن تكون الدولة رمزًا مدعومًا من حرفين وفق معيار \u2066ISO 3166-1\u2069.",
      hi: "देश एक समर्थित दो-अक्षरों वाला ISO 3166-1 कोड होना चाहिए।",
    },
  },
  "developer.api_key_limit": {
    status: 409,
    grpc: Code.ResourceExhausted,
    params: { limit: "number" },
    messages: {
      en: "The app already has the maximum of {limit} API keys. Revoke one before creating another.",
      ar: "بلغ التطبيق الحد الأقصى لمفاتيح \u2066API\u2069 وهو {limit}. ألغِ أحد المفاتيح قبل إنشاء مفتاح جديد.",
      hi: "ऐप के पास पहले से अधिकतम {limit} API कुंजियाँ हैं। नई कुंजी बनाने से पहले एक कुंजी रद्द करें।",
    },
  },
  "developer.api_key_name_taken": {
    status: 409,
    grpc: Code.AlreadyExists,
    messages: {
      en: "The app already has a live API key with this name. Choose another name, or revoke that key first.",
      ar: "لدى التطبيق بالفعل مفتاح \u2066API\u2069 فعّال بهذا الاسم. اختر اسمًا آخر، أو ألغِ ذلك المفتاح أولًا.",
      hi: "ऐप के पास इस नाम की एक सक्रिय API कुंजी पहले से है। कोई दूसरा नाम चुनें, या पहले उस कुंजी को रद्द करें।",
    },
  },
  "developer.access_request_exists": {
    status: 409,
    grpc: Code.AlreadyExists,
    messages: {
      en: "This app already has a pending or approved access request for this merchant.",
      ar: "لدى هذا التطبيق بالفعل طلب وصول قيد الانتظار أو معتمد لهذا التاجر.",
      hi: "इस ऐप का इस व्यापारी के लिए एक पहुँच अनुरोध पहले से लंबित या स्वीकृत है।",
    },
  },
  "developer.access_request_not_found": {
    status: 404,
    grpc: Code.NotFound,
    messages: { en: "Access request not found.", ar: "طلب الوصول غير موجود.", hi: "पहुँच अनुरोध नहीं मिला।" },
  },
  "developer.request_log_entry_not_found": {
    status: 404,
    grpc: Code.NotFound,
    messages: {
      en: "This call is not in the app's request log (only the last 1,000 calls are kept).",
      ar: "هذا الاستدعاء غير موجود في سجل طلبات التطبيق (يُحتفظ بآخر 1000 استدعاء فقط).",
      hi: "यह कॉल ऐप के अनुरोध लॉग में नहीं है (केवल पिछली 1,000 कॉल रखी जाती हैं)।",
    },
  },
  "developer.access_request_not_pending": {
    status: 409,
    grpc: Code.FailedPrecondition,
    params: { state: "string" },
    messages: {
      en: "This access request can no longer be decided: it is {state}.",
      ar: "لم يعد بالإمكان البت في طلب الوصول هذا: حالته {state}.",
      hi: "इस पहुँच अनुरोध पर अब निर्णय नहीं लिया जा सकता: इसकी स्थिति {state} है।",
    },
  },
  "developer.access_request_not_approved": {
    status: 409,
    grpc: Code.FailedPrecondition,
    params: { state: "string" },
    messages: {
      en: "Only an approved access request can be withdrawn; this one is {state}.",
      ar: "لا يمكن سحب الموافقة إلا على طلب وصول معتمد؛ حالة هذا الطلب {state}.",
      hi: "केवल स्वीकृत पहुँच अनुरोध ही वापस लिया जा सकता है; इसकी स्थिति {state} है।",
    },
  },
  "developer.merchant_owner_required": {
    status: 403,
    grpc: Code.PermissionDenied,
    messages: {
      en: "Only the merchant's account owner can decide on access requests.",
      ar: "لا يمكن البت في طلبات الوصول إلا لمالك حساب التاجر.",
      hi: "केवल व्यापारी के खाते का स्वामी ही पहुँच अनुरोधों पर निर्णय ले सकता है।",
    },
  },
  "developer.app_not_found": {
    status: 404,
    grpc: Code.NotFound,
    messages: { en: "App not found.", ar: "التطبيق غير موجود.", hi: "ऐप नहीं मिला।" },
  },
  "developer.organization_not_found": {
    status: 404,
    grpc: Code.NotFound,
    messages: { en: "Organization not found.", ar: "المؤسسة غير موجودة.", hi: "संगठन नहीं मिला।" },
  },
  "developer.credential_not_found": {
    status: 404,
    grpc: Code.NotFound,
    messages: { en: "Credential not found.", ar: "بيانات الاعتماد غير موجودة.", hi: "क्रेडेंशियल नहीं मिला।" },
  },
  "developer.api_key_not_found": {
    status: 404,
    grpc: Code.NotFound,
    messages: { en: "API key not found.", ar: "مفتاح \u2066API\u2069 غير موجود.", hi: "API कुंजी नहीं मिली।" },
  },
  "developer.webhook_endpoint_not_found": {
    status: 404,
    grpc: Code.NotFound,
    messages: {
      en: "Webhook endpoint not found.",
      ar: "نقطة استقبال الويب هوك غير موجودة.",
      hi: "वेबहुक एंडपॉइंट नहीं मिला।",
    },
  },
  "developer.webhook_delivery_not_found": {
    status: 404,
    grpc: Code.NotFound,
    messages: {
      en: "Webhook delivery not found.",
      ar: "عملية تسليم الويب هوك غير موجودة.",
      hi: "वेबहुक डिलीवरी नहीं मिली।",
    },
  },
  "developer.webhook_url_invalid": {
    status: 400,
    grpc: Code.InvalidArgument,
    params: { rule: "string" },
    messages: {
      en: "The webhook URL is not allowed: it {rule}.",
      ar: "عنوان الويب هوك غير مسموح به: يجب أن {rule}.",
      hi: "वेबहुक URL स्वीकार्य नहीं है: यह नियम लागू होता है — {rule}।",
    },
  },
  "developer.webhook_event_unknown": {
    status: 400,
    grpc: Code.InvalidArgument,
    params: { event: "string" },
    messages: {
      en: "Unknown event type: {event}.",
      ar: "نوع حدث غير معروف: {event}.",
      hi: "अज्ञात इवेंट प्रकार: {event}।",
    },
  },
  "developer.webhook_endpoint_limit": {
    status: 409,
    grpc: Code.ResourceExhausted,
    params: { limit: "number" },
    messages: {
      en: "The app already has the most webhook endpoints allowed ({limit}) in this environment. Delete one first.",
      ar: "لدى التطبيق بالفعل الحد الأقصى المسموح به من نقاط استقبال الويب هوك ({limit}) في هذه البيئة. احذف واحدة أولاً.",
      hi: "इस परिवेश में ऐप के पास पहले से अधिकतम {limit} वेबहुक एंडपॉइंट हैं। पहले एक हटाएँ।",
    },
  },
  "developer.webhook_url_taken": {
    status: 409,
    grpc: Code.AlreadyExists,
    messages: {
      en: "The app already has a webhook endpoint with this URL in this environment. Use that endpoint, or enter another URL.",
      ar: "لدى التطبيق بالفعل نقطة استقبال ويب هوك بهذا العنوان في هذه البيئة. استخدم تلك النقطة، أو أدخل عنوانًا آخر.",
      hi: "इस परिवेश में ऐप के पास इस URL का वेबहुक एंडपॉइंट पहले से है। उसी एंडपॉइंट का उपयोग करें, या कोई दूसरा URL दर्ज करें।",
    },
  },
  "developer.redirect_uri_invalid": {
    status: 400,
    grpc: Code.InvalidArgument,
    params: { field: "string", rule: "string" },
    messages: {
      en: "The redirect URI in {field} is not allowed ({rule}).",
      ar: "عنوان إعادة التوجيه في {field} غير مسموح به ({rule}).",
      hi: "{field} में दिया गया redirect URI स्वीकार्य नहीं है ({rule})।",
    },
  },
  "developer.app_link_invalid": {
    status: 400,
    grpc: Code.InvalidArgument,
    params: { field: "string", rule: "string" },
    messages: {
      en: "The link in {field} is not allowed ({rule}): give an absolute https URL of at most 2,000 characters, without a user name or password.",
      ar: "الرابط في {field} غير مسموح به ({rule}): أدخل عنوان \u2066https\u2069 كاملًا لا يزيد على 2000 حرف، بلا اسم مستخدم أو كلمة مرور.",
      hi: "{field} में दिया गया लिंक स्वीकार्य नहीं है ({rule}): अधिकतम 2,000 अक्षरों का पूरा https URL दें, बिना उपयोगकर्ता नाम या पासवर्ड के।",
    },
  },
  "developer.app_links_missing": {
    status: 409,
    grpc: Code.FailedPrecondition,
    params: { fields: "string" },
    messages: {
      en: "The app needs its website, privacy policy and terms links before review. Missing: {fields}.",
      ar: "يحتاج التطبيق إلى روابط موقعه الإلكتروني وسياسة الخصوصية وشروط الخدمة قبل المراجعة. الناقص: {fields}.",
      hi: "समीक्षा से पहले ऐप को अपनी वेबसाइट, गोपनीयता नीति और सेवा की शर्तों के लिंक चाहिए। जो नहीं हैं: {fields}।",
    },
  },
  "developer.redirect_uri_limit": {
    status: 409,
    grpc: Code.ResourceExhausted,
    params: { limit: "number" },
    messages: {
      en: "An app can have at most {limit} redirect URIs.",
      ar: "الحد الأقصى لعناوين إعادة التوجيه لكل تطبيق هو {limit}.",
      hi: "एक ऐप में अधिकतम {limit} redirect URI हो सकते हैं।",
    },
  },
  "developer.ip_allowlist_invalid": {
    status: 400,
    grpc: Code.InvalidArgument,
    params: { field: "string", value: "string" },
    messages: {
      en: '"{value}" in {field} is not a valid IP address or range.',
      ar: 'القيمة "{value}" في {field} ليست عنوان \u2066IP\u2069 أو نطاقًا صالحًا.',
      hi: '{field} में "{value}" एक मान्य IP पता या रेंज नहीं है।',
    },
  },
  "developer.merchant_user_invalid": {
    status: 400,
    grpc: Code.InvalidArgument,
    messages: {
      en: "The merchant user is not valid for this request.",
      ar: "مستخدم التاجر غير صالح لهذا الطلب.",
      hi: "इस अनुरोध के लिए व्यापारी उपयोगकर्ता मान्य नहीं है।",
    },
  },

  // ---------------------------------------------------------------- developer: token minting (POST /v1/token)
  "developer.invalid_client": {
    status: 401,
    grpc: Code.Unauthenticated,
    oauth: "invalid_client",
    // RFC 6749 §5.2 for the OAuth body; RFC 9110 §15.5.2 (a 401 names a scheme) for the developer envelope.
    headers: { "WWW-Authenticate": "Basic" },
    messages: {
      en: "Client authentication failed.",
      ar: "فشلت مصادقة العميل.",
      hi: "क्लाइंट प्रमाणीकरण विफल रहा।",
    },
  },
  "developer.merchant_required": {
    status: 400,
    grpc: Code.InvalidArgument,
    oauth: "invalid_request",
    messages: {
      en: "merchant_id is required unless the organization has exactly one active sandbox merchant.",
      ar: "الحقل \u2066merchant_id\u2069 مطلوب ما لم يكن لدى المؤسسة تاجر نشط واحد فقط في بيئة الاختبار.",
      hi: "merchant_id आवश्यक है, जब तक कि संगठन के पास ठीक एक सक्रिय sandbox व्यापारी न हो।",
    },
  },
  "developer.merchant_not_found": {
    status: 404,
    grpc: Code.NotFound,
    oauth: "invalid_request",
    messages: {
      en: "No merchant exists with this merchant_id.",
      ar: "لا يوجد تاجر بهذا المعرّف \u2066merchant_id\u2069.",
      hi: "इस merchant_id वाला कोई व्यापारी मौजूद नहीं है।",
    },
  },
  "developer.merchant_inactive": {
    status: 403,
    grpc: Code.PermissionDenied,
    oauth: "invalid_grant",
    messages: {
      en: "This merchant is not active.",
      ar: "هذا التاجر غير نشط.",
      hi: "यह व्यापारी सक्रिय नहीं है।",
    },
  },
  "developer.grant_missing": {
    status: 403,
    grpc: Code.PermissionDenied,
    oauth: "invalid_grant",
    messages: {
      en: "The app has no active access to this merchant.",
      ar: "لا يملك التطبيق صلاحية وصول نشطة إلى هذا التاجر.",
      hi: "ऐप के पास इस व्यापारी तक कोई सक्रिय पहुँच नहीं है।",
    },
  },
  "developer.env_mismatch": {
    status: 403,
    grpc: Code.PermissionDenied,
    oauth: "invalid_grant",
    messages: {
      en: "The credential's environment does not match the merchant: sandbox credentials work only with demo merchants, production credentials only with live ones.",
      ar: "بيئة بيانات الاعتماد لا تتوافق مع التاجر: بيانات اعتماد الاختبار تعمل مع التجار التجريبيين فقط، وبيانات اعتماد الإنتاج مع التجار الفعليين فقط.",
      hi: "क्रेडेंशियल का परिवेश व्यापारी से मेल नहीं खाता: sandbox क्रेडेंशियल केवल डेमो व्यापारियों के साथ और production क्रेडेंशियल केवल लाइव व्यापारियों के साथ काम करते हैं।",
    },
  },
  "developer.region_unconfigured": {
    status: 503,
    grpc: Code.Unavailable,
    oauth: "temporarily_unavailable",
    messages: {
      en: "The service is temporarily unavailable for this merchant. Try again later.",
      ar: "الخدمة غير متاحة مؤقتًا لهذا التاجر. حاول مرة أخرى لاحقًا.",
      hi: "इस व्यापारी के लिए सेवा अस्थायी रूप से उपलब्ध नहीं है। बाद में फिर से प्रयास करें।",
    },
  },
  "developer.use_oauth": {
    status: 400,
    grpc: Code.InvalidArgument,
    oauth: "unauthorized_client",
    messages: {
      en: "Production FULL and ONLINE_ORDER apps must use the OAuth authorization code flow, not client_credentials.",
      ar: "يجب أن تستخدم تطبيقات \u2066FULL\u2069 و\u2066ONLINE_ORDER\u2069 في بيئة الإنتاج تدفق رمز التفويض في \u2066OAuth\u2069 بدلًا من \u2066client_credentials\u2069.",
      hi: "प्रोडक्शन में FULL और ONLINE_ORDER ऐप्स को client_credentials नहीं, बल्कि OAuth authorization code फ़्लो का उपयोग करना होगा।",
    },
  },
  "developer.use_api_key": {
    status: 400,
    grpc: Code.InvalidArgument,
    oauth: "unauthorized_client",
    messages: {
      en: "Production ADSR apps must use an API key, not client_credentials.",
      ar: "يجب أن تستخدم تطبيقات \u2066ADSR\u2069 في بيئة الإنتاج مفتاح \u2066API\u2069 بدلًا من \u2066client_credentials\u2069.",
      hi: "प्रोडक्शन में ADSR ऐप्स को client_credentials नहीं, बल्कि API कुंजी का उपयोग करना होगा।",
    },
  },
  "developer.invalid_request": {
    status: 400,
    grpc: Code.InvalidArgument,
    oauth: "invalid_request",
    params: { fields: "string" },
    messages: {
      en: "Some fields are missing or invalid: {fields}.",
      ar: "بعض الحقول مفقودة أو غير صالحة: {fields}.",
      hi: "कुछ फ़ील्ड अनुपस्थित या अमान्य हैं: {fields}।",
    },
  },
  "developer.unsupported_grant_type": {
    status: 400,
    grpc: Code.InvalidArgument,
    oauth: "unsupported_grant_type",
    params: { grantType: "string" },
    messages: {
      en: 'grant_type "{grantType}" is not supported here; only client_credentials is accepted.',
      ar: 'نوع المنح "{grantType}" غير مدعوم هنا؛ يُقبل \u2066client_credentials\u2069 فقط.',
      hi: 'यहाँ grant_type "{grantType}" समर्थित नहीं है; केवल client_credentials स्वीकार किया जाता है।',
    },
  },
  "developer.ip_denied": {
    // POST /v1/token: the developer envelope's partner.ip_denied (the presented credential's allowlist).
    status: 403,
    grpc: Code.PermissionDenied,
    messages: {
      en: "Requests from this IP address are not allowed for this credential.",
      ar: "الطلبات من عنوان \u2066IP\u2069 هذا غير مسموح بها لبيانات الاعتماد هذه.",
      hi: "इस क्रेडेंशियल के लिए इस IP पते से अनुरोध की अनुमति नहीं है।",
    },
  },
  "developer.dpop_proof_invalid": {
    // POST /v1/token: the developer envelope's oauth.dpop_proof_invalid.
    status: 400,
    grpc: Code.InvalidArgument,
    oauth: "invalid_dpop_proof",
    messages: {
      en: "The DPoP proof is malformed, not for this request, too old or already used. Send a new proof signed with the client's key.",
      ar: "إثبات \u2066DPoP\u2069 غير صالح الصيغة أو لا يخص هذا الطلب أو قديم جدًا أو سبق استخدامه. أرسل إثباتًا جديدًا موقّعًا بمفتاح العميل.",
      hi: "DPoP प्रमाण ग़लत प्रारूप में है, इस अनुरोध के लिए नहीं है, बहुत पुराना है या पहले ही उपयोग हो चुका है। क्लाइंट की कुंजी से हस्ताक्षरित नया प्रमाण भेजें।",
    },
  },
  "developer.dpop_nonce_required": {
    status: 400,
    grpc: Code.FailedPrecondition,
    oauth: "use_dpop_nonce",
    params: { nonce: "string" },
    headers: { "DPoP-Nonce": "{nonce}" },
    messages: {
      en: "Send the DPoP proof again with the nonce {nonce} (also in the DPoP-Nonce header).",
      ar: "أرسل إثبات \u2066DPoP\u2069 مرة أخرى مع القيمة {nonce} (موجودة أيضًا في ترويسة \u2066DPoP-Nonce\u2069).",
      hi: "DPoP प्रमाण को nonce {nonce} के साथ फिर से भेजें (यह DPoP-Nonce हेडर में भी है)।",
    },
  },
  "developer.dpop_required": {
    status: 400,
    grpc: Code.FailedPrecondition,
    messages: {
      en: "This app requires DPoP: send a DPoP proof header with the token request.",
      ar: "يتطلب هذا التطبيق \u2066DPoP\u2069: أرسل ترويسة إثبات \u2066DPoP\u2069 مع طلب الرمز.",
      hi: "इस ऐप के लिए DPoP आवश्यक है: टोकन अनुरोध के साथ DPoP प्रमाण हेडर भेजें।",
    },
  },
  "developer.rate_limited": {
    status: 429,
    grpc: Code.ResourceExhausted,
    oauth: "invalid_request",
    params: { retryAfter: "number" },
    headers: { "Retry-After": "{retryAfter}" },
    messages: {
      en: "Too many requests. Wait {retryAfter} seconds before trying again.",
      ar: "طلبات كثيرة جدًا. انتظر {retryAfter} ثانية قبل المحاولة مرة أخرى.",
      hi: "बहुत अधिक अनुरोध। फिर से प्रयास करने से पहले {retryAfter} सेकंड प्रतीक्षा करें।",
    },
  },

  // ---------------------------------------------------------------- partner: any partner call
  "partner.token_missing": {
    status: 401,
    grpc: Code.Unauthenticated,
    headers: { "WWW-Authenticate": "Bearer" }, // RFC 6750 §3.1: no error attribute when no credentials came.
    messages: {
      en: "Authentication is required: send a bearer token or an API key.",
      ar: "المصادقة مطلوبة: أرسل رمز \u2066Bearer\u2069 أو مفتاح \u2066API\u2069.",
      hi: "प्रमाणीकरण आवश्यक है: एक bearer टोकन या API कुंजी भेजें।",
    },
  },
  "partner.token_invalid": {
    status: 401,
    grpc: Code.Unauthenticated,
    headers: { "WWW-Authenticate": 'Bearer error="invalid_token"' },
    messages: {
      en: "The access token is invalid or has expired.",
      ar: "رمز الوصول غير صالح أو منتهي الصلاحية.",
      hi: "एक्सेस टोकन अमान्य है या उसकी समय-सीमा समाप्त हो गई है।",
    },
  },
  "partner.dpop_proof_invalid": {
    status: 401,
    grpc: Code.Unauthenticated,
    headers: { "WWW-Authenticate": 'DPoP error="invalid_dpop_proof", algs="ES256 ES384 PS256 RS256 EdDSA"' }, // RFC 9449 §7.1
    messages: {
      en: "The DPoP proof is missing, malformed, not for this request (method, URL, access token), too old or already used.",
      ar: "إثبات \u2066DPoP\u2069 مفقود أو غير صالح الصيغة أو لا يخص هذا الطلب (الطريقة أو العنوان أو رمز الوصول) أو قديم جدًا أو سبق استخدامه.",
      hi: "DPoP प्रमाण मौजूद नहीं है, ग़लत प्रारूप में है, इस अनुरोध (मेथड, URL, एक्सेस टोकन) के लिए नहीं है, बहुत पुराना है या पहले ही उपयोग हो चुका है।",
    },
  },
  "partner.dpop_nonce_required": {
    status: 401,
    grpc: Code.Unauthenticated,
    params: { nonce: "string" },
    headers: {
      "WWW-Authenticate": 'DPoP error="use_dpop_nonce", algs="ES256 ES384 PS256 RS256 EdDSA"',
      "DPoP-Nonce": "{nonce}",
    }, // RFC 9449 §9
    messages: {
      en: "Send the DPoP proof again with the nonce {nonce} (also in the DPoP-Nonce header).",
      ar: "أرسل إثبات \u2066DPoP\u2069 مرة أخرى مع القيمة {nonce} (موجودة أيضًا في ترويسة \u2066DPoP-Nonce\u2069).",
      hi: "DPoP प्रमाण को nonce {nonce} के साथ फिर से भेजें (यह DPoP-Nonce हेडर में भी है)।",
    },
  },
  "partner.dpop_bound_token": {
    status: 401,
    grpc: Code.Unauthenticated,
    headers: { "WWW-Authenticate": 'DPoP error="invalid_token", algs="ES256 ES384 PS256 RS256 EdDSA"' },
    messages: {
      en: "This access token is bound to a DPoP key: send it as Authorization: DPoP, with a DPoP proof.",
      ar: "رمز الوصول هذا مرتبط بمفتاح \u2066DPoP\u2069: أرسله بصيغة \u2066Authorization: DPoP\u2069 مع إثبات \u2066DPoP\u2069.",
      hi: "यह एक्सेस टोकन एक DPoP कुंजी से बंधा है: इसे Authorization: DPoP के रूप में, DPoP प्रमाण के साथ भेजें।",
    },
  },
  "partner.dpop_token_unbound": {
    status: 401,
    grpc: Code.Unauthenticated,
    headers: { "WWW-Authenticate": 'DPoP error="invalid_token", algs="ES256 ES384 PS256 RS256 EdDSA"' },
    messages: {
      en: "This access token is not bound to a DPoP key: send it as Authorization: Bearer.",
      ar: "رمز الوصول هذا غير مرتبط بمفتاح \u2066DPoP\u2069: أرسله بصيغة \u2066Authorization: Bearer\u2069.",
      hi: "यह एक्सेस टोकन किसी DPoP कुंजी से बंधा नहीं है: इसे Authorization: Bearer के रूप में भेजें।",
    },
  },
  "partner.dpop_required": {
    status: 401,
    grpc: Code.Unauthenticated,
    headers: { "WWW-Authenticate": 'DPoP error="invalid_token", algs="ES256 ES384 PS256 RS256 EdDSA"' },
    messages: {
      en: "This app requires DPoP: get a DPoP-bound token and send it as Authorization: DPoP, with a DPoP proof.",
      ar: "يتطلب هذا التطبيق \u2066DPoP\u2069: احصل على رمز مرتبط بمفتاح \u2066DPoP\u2069 وأرسله بصيغة \u2066Authorization: DPoP\u2069 مع إثبات \u2066DPoP\u2069.",
      hi: "इस ऐप के लिए DPoP आवश्यक है: DPoP से बंधा टोकन लें और उसे Authorization: DPoP के रूप में, DPoP प्रमाण के साथ भेजें।",
    },
  },
  "partner.scope_denied": {
    status: 403,
    grpc: Code.PermissionDenied,
    messages: {
      en: "This route needs a scope that the app's product does not include.",
      ar: "يتطلب هذا المسار نطاق صلاحية لا يتضمنه منتج التطبيق.",
      hi: "इस रूट के लिए ऐसा स्कोप चाहिए जो ऐप के प्रोडक्ट में शामिल नहीं है।",
    },
  },
  "partner.env_mismatch": {
    status: 403,
    grpc: Code.PermissionDenied,
    messages: {
      en: "The token's environment does not match this merchant: sandbox tokens reach only demo merchants, production tokens only live ones.",
      ar: "بيئة الرمز لا تتوافق مع هذا التاجر: رموز الاختبار للتجار التجريبيين فقط، ورموز الإنتاج للتجار الفعليين فقط.",
      hi: "टोकन का परिवेश इस व्यापारी से मेल नहीं खाता: sandbox टोकन केवल डेमो व्यापारियों तक और production टोकन केवल लाइव व्यापारियों तक पहुँचते हैं।",
    },
  },
  "partner.ip_denied": {
    status: 403,
    grpc: Code.PermissionDenied,
    messages: {
      en: "Requests from this IP address are not allowed for this credential.",
      ar: "الطلبات من عنوان \u2066IP\u2069 هذا غير مسموح بها لبيانات الاعتماد هذه.",
      hi: "इस क्रेडेंशियल के लिए इस IP पते से अनुरोध की अनुमति नहीं है।",
    },
  },
  "partner.grant_missing": {
    status: 403,
    grpc: Code.PermissionDenied,
    messages: {
      en: "The app no longer has access to this merchant.",
      ar: "لم يعد لدى التطبيق صلاحية الوصول إلى هذا التاجر.",
      hi: "ऐप के पास अब इस व्यापारी तक पहुँच नहीं है।",
    },
  },
  "partner.rate_limited": {
    status: 429,
    grpc: Code.ResourceExhausted,
    params: { retryAfter: "number" },
    headers: { "Retry-After": "{retryAfter}" },
    messages: {
      en: "Rate limit exceeded. Wait {retryAfter} seconds before sending more requests.",
      ar: "تم تجاوز الحد المسموح به من الطلبات. انتظر {retryAfter} ثانية قبل إرسال المزيد.",
      hi: "अनुरोध सीमा पार हो गई है। और अनुरोध भेजने से पहले {retryAfter} सेकंड प्रतीक्षा करें।",
    },
  },
  "partner.window_too_large": {
    status: 400,
    grpc: Code.InvalidArgument,
    messages: {
      en: "The report window is longer than the maximum allowed.",
      ar: "الفترة الزمنية للتقرير أطول من الحد الأقصى المسموح به.",
      hi: "रिपोर्ट की अवधि अनुमत अधिकतम सीमा से लंबी है।",
    },
  },
  "partner.invalid_window": {
    status: 400,
    grpc: Code.InvalidArgument,
    messages: {
      en: "from and to must both be dates (YYYY-MM-DD), and to must not be before from.",
      ar: "يجب أن يكون كل من \u2066from\u2069 و\u2066to\u2069 تاريخًا بالصيغة \u2066YYYY-MM-DD\u2069، وألا يسبق \u2066to\u2069 التاريخ \u2066from\u2069.",
      hi: "from और to दोनों YYYY-MM-DD प्रारूप में तिथियाँ होनी चाहिए, और to, from से पहले का नहीं होना चाहिए।",
    },
  },
  "partner.order_not_found": {
    status: 404,
    grpc: Code.NotFound,
    messages: {
      en: "Online order not found.",
      ar: "الطلب الإلكتروني غير موجود.",
      hi: "ऑनलाइन ऑर्डर नहीं मिला।",
    },
  },
  "partner.order_status_conflict": {
    // A move the lifecycle does not allow from the order's current status (a racing move that lost included).
    status: 409,
    grpc: Code.FailedPrecondition,
    params: { status: "string", target: "string" },
    messages: {
      en: "The online order is {status}; it cannot become {target}.",
      ar: "حالة الطلب الإلكتروني {status}؛ ولا يمكن أن يصبح {target}.",
      hi: "ऑनलाइन ऑर्डर की स्थिति {status} है; यह {target} नहीं हो सकता।",
    },
  },
  "partner.order_not_owned": {
    status: 403,
    grpc: Code.PermissionDenied,
    messages: {
      en: "Only the app that placed this online order may cancel it.",
      ar: "لا يمكن إلغاء هذا الطلب الإلكتروني إلا من التطبيق الذي قدّمه.",
      hi: "इस ऑनलाइन ऑर्डर को केवल वही ऐप रद्द कर सकता है जिसने इसे दिया था।",
    },
  },
  "partner.store_not_found": {
    status: 404,
    grpc: Code.NotFound,
    params: { field: "string" },
    messages: {
      en: "The store in {field} is not one of the merchant's stores.",
      ar: "المتجر في {field} ليس من متاجر التاجر.",
      hi: "{field} में दिया गया स्टोर इस व्यापारी का स्टोर नहीं है।",
    },
  },
  "partner.store_not_in_scope": {
    status: 403,
    grpc: Code.PermissionDenied,
    params: { field: "string" },
    messages: {
      en: "The store in {field} is outside the stores this access covers.",
      ar: "المتجر في {field} خارج المتاجر التي يشملها هذا الوصول.",
      hi: "{field} में दिया गया स्टोर इस पहुँच में शामिल स्टोरों से बाहर है।",
    },
  },
  "partner.item_not_found": {
    status: 404,
    grpc: Code.NotFound,
    params: { field: "string" },
    messages: {
      en: "The item in {field} is not in the merchant's catalogue.",
      ar: "الصنف في {field} غير موجود في كتالوج التاجر.",
      hi: "{field} में दिया गया आइटम व्यापारी के कैटलॉग में नहीं है।",
    },
  },
  "partner.modifier_not_found": {
    status: 404,
    grpc: Code.NotFound,
    params: { field: "string" },
    messages: {
      en: "The modifier in {field} is not one of this item's modifiers in the merchant's catalogue.",
      ar: "الإضافة في {field} ليست من إضافات هذا الصنف في كتالوج التاجر.",
      hi: "{field} में दिया गया मॉडिफ़ायर व्यापारी के कैटलॉग में इस आइटम के मॉडिफ़ायरों में से नहीं है।",
    },
  },
  "partner.modifier_group_invalid": {
    status: 400,
    grpc: Code.InvalidArgument,
    params: { field: "string" },
    messages: {
      en: "The modifier groups in {field} ask for more selections than they offer, less than their minimum, repeat a name, or name the same id twice.",
      ar: "مجموعات الإضافات في {field} تطلب اختيارات أكثر مما تعرض، أو أقل من حدها الأدنى، أو تكرر اسمًا، أو تذكر المعرّف نفسه مرتين.",
      hi: "{field} में दिए गए मॉडिफ़ायर समूह जितने विकल्प देते हैं उससे अधिक या अपनी न्यूनतम संख्या से कम चुनाव माँगते हैं, कोई नाम दोहराते हैं, या एक ही आईडी दो बार देते हैं।",
    },
  },
  "partner.category_not_found": {
    status: 404,
    grpc: Code.NotFound,
    params: { field: "string" },
    messages: {
      en: "The category in {field} is not one of the merchant's categories.",
      ar: "الفئة في {field} ليست من فئات التاجر.",
      hi: "{field} में दी गई श्रेणी इस व्यापारी की श्रेणी नहीं है।",
    },
  },
  "partner.category_items_mismatch": {
    status: 409,
    grpc: Code.FailedPrecondition,
    params: { field: "string" },
    messages: {
      en: "The items in {field} must be exactly the category's items on the menu, each once, in the new order.",
      ar: "يجب أن تكون الأصناف في {field} هي أصناف الفئة المعروضة في القائمة تمامًا، كل منها مرة واحدة، بالترتيب الجديد.",
      hi: "{field} में दिए गए आइटम ठीक वही होने चाहिए जो मेन्यू में इस श्रेणी के आइटम हैं, हर एक एक बार, नए क्रम में।",
    },
  },
  "partner.feed_updated_from_invalid": {
    // The catalogue's change feeds (GET /v1/items, /v1/stores, /v1/categories with updatedFrom): a start we cannot read.
    status: 400,
    grpc: Code.InvalidArgument,
    params: { field: "string" },
    messages: {
      en: "The time in {field} must be an RFC 3339 date-time with an offset, such as 2026-11-20T00:00:00Z.",
      ar: "يجب أن يكون الوقت في {field} تاريخًا ووقتًا بصيغة \u2066RFC 3339\u2069 مع فرق التوقيت، مثل \u20662026-11-20T00:00:00Z\u2069.",
      hi: "{field} में दिया गया समय ऑफ़सेट सहित RFC 3339 दिनांक-समय होना चाहिए, जैसे 2026-11-20T00:00:00Z।",
    },
  },
  "partner.feed_cursor_invalid": {
    // A cursor this change feed did not issue: another list's (another feed's included), or not one of ours.
    status: 400,
    grpc: Code.InvalidArgument,
    params: { field: "string" },
    messages: {
      en: "The cursor in {field} was not issued by this change feed: send a nextCursor this list gave, or start again with updatedFrom.",
      ar: "المؤشر في {field} لم يصدر عن موجز التغييرات هذا: أرسل قيمة \u2066nextCursor\u2069 أعادتها هذه القائمة، أو ابدأ من جديد باستخدام \u2066updatedFrom\u2069.",
      hi: "{field} में दिया गया कर्सर इस बदलाव फ़ीड ने जारी नहीं किया: इसी सूची से मिला nextCursor भेजें, या updatedFrom के साथ फिर से शुरू करें।",
    },
  },
  "partner.item_currency_mismatch": {
    status: 409,
    grpc: Code.FailedPrecondition,
    params: { field: "string" },
    messages: {
      en: "The item in {field} is priced in another currency than the store's.",
      ar: "الصنف في {field} مسعّر بعملة غير عملة المتجر.",
      hi: "{field} में दिया गया आइटम स्टोर की मुद्रा के बजाय किसी अन्य मुद्रा में मूल्यांकित है।",
    },
  },
  "partner.order_requested_for_out_of_range": {
    status: 400,
    grpc: Code.InvalidArgument,
    params: { field: "string", maxDays: "number" },
    messages: {
      en: "The time in {field} must be from now to {maxDays} days ahead.",
      ar: "يجب أن يكون الوقت في {field} بين الآن و{maxDays} أيام مقبلة.",
      hi: "{field} में दिया गया समय अभी से लेकर अगले {maxDays} दिनों के भीतर होना चाहिए।",
    },
  },
  "partner.order_customer_phone_required": {
    status: 400,
    grpc: Code.InvalidArgument,
    params: { field: "string" },
    messages: {
      en: "A DELIVERY order needs the customer's phone number in {field}.",
      ar: "يتطلب طلب التوصيل (\u2066DELIVERY\u2069) رقم هاتف العميل في {field}.",
      hi: "DELIVERY ऑर्डर के लिए {field} में ग्राहक का फ़ोन नंबर आवश्यक है।",
    },
  },
  "partner.store_paused": {
    status: 409,
    grpc: Code.FailedPrecondition,
    params: { field: "string" },
    messages: {
      en: "The store in {field} has paused online orders; try again when it takes them.",
      ar: "أوقف المتجر في {field} استقبال الطلبات عبر الإنترنت مؤقتًا؛ حاول مرة أخرى عندما يستقبلها.",
      hi: "{field} में दिए गए स्टोर ने ऑनलाइन ऑर्डर अभी रोक रखे हैं; जब वह ऑर्डर ले तब फिर कोशिश करें।",
    },
  },
  "partner.store_closed": {
    status: 409,
    grpc: Code.FailedPrecondition,
    params: { field: "string" },
    messages: {
      en: "The store is closed at the time the order is for ({field}, or now when it is absent).",
      ar: "المتجر مغلق في الوقت المطلوب للطلب ({field}، أو الآن إذا لم يُحدد).",
      hi: "ऑर्डर के समय ({field}, या उसके न होने पर अभी) स्टोर बंद है।",
    },
  },
  "partner.item_sold_out": {
    status: 409,
    grpc: Code.FailedPrecondition,
    params: { field: "string" },
    messages: {
      en: "The item in {field} is sold out in this store.",
      ar: "الصنف في {field} نفد في هذا المتجر.",
      hi: "{field} में दिया गया आइटम इस स्टोर में बिक चुका है।",
    },
  },
  "partner.modifier_sold_out": {
    status: 409,
    grpc: Code.FailedPrecondition,
    params: { field: "string" },
    messages: {
      en: "The modifier in {field} is sold out in this store.",
      ar: "الإضافة في {field} نفدت في هذا المتجر.",
      hi: "{field} में दिया गया मॉडिफ़ायर इस स्टोर में बिक चुका है।",
    },
  },
  "partner.modifier_selections_out_of_range": {
    status: 400,
    grpc: Code.InvalidArgument,
    params: { field: "string", groupId: "number", minSelections: "number", maxSelections: "number" },
    messages: {
      en: "The line in {field} must choose from {minSelections} to {maxSelections} of modifier group {groupId}.",
      ar: "يجب أن يختار السطر في {field} من {minSelections} إلى {maxSelections} من مجموعة الإضافات {groupId}.",
      hi: "{field} वाली पंक्ति को मॉडिफ़ायर समूह {groupId} में से {minSelections} से {maxSelections} तक चुनने होंगे।",
    },
  },
  "partner.invalid_time_zone": {
    status: 400,
    grpc: Code.InvalidArgument,
    params: { field: "string" },
    messages: {
      en: "{field} must be an IANA time zone name, spelled as the tz database spells it (Europe/London).",
      ar: "يجب أن يكون {field} اسم منطقة زمنية من \u2066IANA\u2069 مكتوبًا كما تكتبه قاعدة بيانات \u2066tz\u2069 (\u2066Europe/London\u2069).",
      hi: "{field} एक IANA समय क्षेत्र का नाम होना चाहिए, जैसा tz डेटाबेस उसे लिखता है (Europe/London)।",
    },
  },
  "partner.opening_hours_invalid": {
    status: 400,
    grpc: Code.InvalidArgument,
    params: { field: "string" },
    messages: {
      en: "The opening hours in {field} repeat a day or a date, overlap another range, open and close at the same time, or name a date that does not exist.",
      ar: "ساعات العمل في {field} تكرر يومًا أو تاريخًا، أو تتداخل مع فترة أخرى، أو تفتح وتغلق في الوقت نفسه، أو تذكر تاريخًا غير موجود.",
      hi: "{field} में दिए गए खुलने के समय में कोई दिन या तिथि दोहराई गई है, कोई अवधि दूसरी से टकराती है, खुलने और बंद होने का समय एक ही है, या ऐसी तिथि है जो मौजूद नहीं है।",
    },
  },
  "partner.acting_user_unavailable": {
    status: 409,
    grpc: Code.FailedPrecondition,
    messages: {
      en: "The merchant has no employee record to attribute this change to.",
      ar: "لا يوجد لدى التاجر سجل موظف يمكن نسب هذا التغيير إليه.",
      hi: "व्यापारी के पास कोई कर्मचारी रिकॉर्ड नहीं है जिसके नाम यह बदलाव दर्ज किया जा सके।",
    },
  },
  "partner.region_unavailable": {
    status: 503,
    grpc: Code.Unavailable,
    oauth: "temporarily_unavailable",
    messages: {
      en: "The service is temporarily unavailable for this merchant. Try again later.",
      ar: "الخدمة غير متاحة مؤقتًا لهذا التاجر. حاول مرة أخرى لاحقًا.",
      hi: "इस व्यापारी के लिए सेवा अस्थायी रूप से उपलब्ध नहीं है। बाद में फिर से प्रयास करें।",
    },
  },

  // ---------------------------------------------------------------- partner: API-key requests
  "partner.api_key_invalid": {
    status: 401,
    grpc: Code.Unauthenticated,
    messages: {
      en: "The API key is not valid.",
      ar: "مفتاح \u2066API\u2069 غير صالح.",
      hi: "API कुंजी मान्य नहीं है।",
    },
  },
  "partner.company_param_required": {
    status: 400,
    grpc: Code.InvalidArgument,
    messages: {
      en: "companyId is required with an API key.",
      ar: "المعامل \u2066companyId\u2069 مطلوب عند استخدام مفتاح \u2066API\u2069.",
      hi: "API कुंजी के साथ companyId आवश्यक है।",
    },
  },
  "partner.company_not_granted": {
    status: 403,
    grpc: Code.PermissionDenied,
    messages: {
      en: "This merchant has not approved access for this app.",
      ar: "لم يوافق هذا التاجر على منح هذا التطبيق صلاحية الوصول.",
      hi: "इस व्यापारी ने इस ऐप को पहुँच की स्वीकृति नहीं दी है।",
    },
  },
  "partner.api_key_product": {
    status: 403,
    grpc: Code.PermissionDenied,
    messages: {
      en: "API keys are accepted only for ADSR apps.",
      ar: "تُقبل مفاتيح \u2066API\u2069 لتطبيقات \u2066ADSR\u2069 فقط.",
      hi: "API कुंजियाँ केवल ADSR ऐप्स के लिए स्वीकार की जाती हैं।",
    },
  },
  // Retry-After like every other 503 (RFC 9110 section 10.2.3): the database it waits for is the control one.
  "partner.api_key_unavailable": {
    status: 503,
    grpc: Code.Unavailable,
    oauth: "temporarily_unavailable",
    params: { retryAfter: "number" },
    headers: { "Retry-After": "{retryAfter}" },
    messages: {
      en: "API key verification is temporarily unavailable. Try again in {retryAfter} seconds.",
      ar: "التحقق من مفتاح \u2066API\u2069 غير متاح مؤقتًا. حاول مرة أخرى بعد {retryAfter} ثانية.",
      hi: "API कुंजी का सत्यापन अस्थायी रूप से उपलब्ध नहीं है। {retryAfter} सेकंड बाद फिर से प्रयास करें।",
    },
  },

  // ---------------------------------------------------------------- data layer
  "db.duplicate": {
    status: 409,
    grpc: Code.AlreadyExists,
    // The request field (JSON name) whose value clashed with an existing record's.
    params: { field: "string" },
    messages: {
      en: "A record with the same {field} already exists.",
      ar: "يوجد سجل بالقيمة نفسها للحقل {field} بالفعل.",
      hi: "समान {field} वाला रिकॉर्ड पहले से मौजूद है।",
    },
  },
  "db.not_found": {
    status: 404,
    grpc: Code.NotFound,
    messages: {
      en: "The referenced record does not exist.",
      ar: "السجل المشار إليه غير موجود.",
      hi: "संदर्भित रिकॉर्ड मौजूद नहीं है।",
    },
  },
  "company.not_provisioned": {
    status: 503,
    grpc: Code.Unavailable,
    oauth: "temporarily_unavailable",
    messages: {
      en: "The merchant's data is not ready yet. Try again in a minute.",
      ar: "بيانات التاجر غير جاهزة بعد. حاول مرة أخرى بعد دقيقة.",
      hi: "व्यापारी का डेटा अभी तैयार नहीं है। एक मिनट बाद फिर से प्रयास करें।",
    },
  },

  // ---------------------------------------------------------------- request: raised by the front itself
  "request.route_not_found": {
    status: 404,
    grpc: Code.NotFound,
    oauth: "invalid_request",
    messages: {
      en: "No route matches this path.",
      ar: "لا يوجد مسار يطابق هذا العنوان.",
      hi: "इस पथ से कोई रूट मेल नहीं खाता।",
    },
  },
  // OpenID Connect Discovery 1.0 section 4: a library that defaults to it asks this path first; we are no OpenID
  // Provider (no ID token), so the 404 names the RFC 8414 document such a library should read instead.
  "request.not_an_openid_provider": {
    status: 404,
    grpc: Code.NotFound,
    oauth: "invalid_request",
    messages: {
      en: "This is an OAuth 2.0 authorization server, not an OpenID Provider: its metadata is at /.well-known/oauth-authorization-server (RFC 8414).",
      ar: "هذا خادم تفويض \u2066OAuth 2.0\u2069 وليس موفّر \u2066OpenID\u2069: بياناته الوصفية في \u2066/.well-known/oauth-authorization-server\u2069 (\u2066RFC 8414\u2069).",
      hi: "यह OAuth 2.0 प्राधिकरण सर्वर है, OpenID प्रदाता नहीं: इसका मेटाडेटा /.well-known/oauth-authorization-server (RFC 8414) पर है।",
    },
  },
  "request.method_not_allowed": {
    status: 405,
    grpc: Code.Unimplemented,
    oauth: "invalid_request",
    params: { allow: "string" },
    headers: { Allow: "{allow}" }, // RFC 9110 §15.5.6: a 405 lists the methods the target supports.
    messages: {
      en: "This method is not allowed here. Allowed methods: {allow}.",
      ar: "هذه الطريقة غير مسموح بها هنا. الطرق المسموح بها: {allow}.",
      hi: "यहाँ यह मेथड अनुमत नहीं है। अनुमत मेथड: {allow}।",
    },
  },
  "request.unsupported_media_type": {
    status: 415,
    grpc: Code.InvalidArgument,
    oauth: "invalid_request",
    params: { contentType: "string" },
    messages: {
      en: 'Content type "{contentType}" is not supported for this route.',
      ar: 'نوع المحتوى "{contentType}" غير مدعوم لهذا المسار.',
      hi: 'इस रूट के लिए कंटेंट टाइप "{contentType}" समर्थित नहीं है।',
    },
  },
  "request.body_too_large": {
    status: 413,
    grpc: Code.ResourceExhausted,
    oauth: "invalid_request",
    params: { limit: "number" },
    messages: {
      en: "The request body is larger than the limit of {limit} bytes.",
      ar: "حجم نص الطلب يتجاوز الحد المسموح به وهو {limit} بايت.",
      hi: "अनुरोध का बॉडी {limit} बाइट की सीमा से बड़ा है।",
    },
  },
  "request.headers_too_large": {
    status: 431,
    grpc: Code.ResourceExhausted,
    oauth: "invalid_request",
    messages: {
      en: "The request line and headers are larger than the server accepts.",
      ar: "سطر الطلب والترويسات أكبر مما يقبله الخادم.",
      hi: "अनुरोध की पंक्ति और हेडर सर्वर की स्वीकार सीमा से बड़े हैं।",
    },
  },
  "request.malformed_body": {
    status: 400,
    grpc: Code.InvalidArgument,
    oauth: "invalid_request",
    messages: {
      en: "The request body could not be read: it is not well-formed JSON or form data.",
      ar: "تعذّرت قراءة نص الطلب: فهو ليس بصيغة \u2066JSON\u2069 أو بيانات نموذج صحيحة.",
      hi: "अनुरोध का बॉडी पढ़ा नहीं जा सका: यह सही JSON या फ़ॉर्म डेटा नहीं है।",
    },
  },
  "request.invalid_fields": {
    status: 400,
    grpc: Code.InvalidArgument,
    oauth: "invalid_request",
    classified: false,
    params: { fields: "string" },
    messages: {
      en: "Invalid or unknown fields: {fields}.",
      ar: "حقول غير صالحة أو غير معروفة: {fields}.",
      hi: "अमान्य या अज्ञात फ़ील्ड: {fields}।",
    },
  },

  // ---------------------------------------------------------------- internal port: service credentials
  "internal.unauthenticated": {
    status: 401,
    grpc: Code.Unauthenticated,
    oauth: "invalid_client",
    messages: {
      en: "This call needs a valid service credential in the X-Service-Credential header.",
      ar: "يتطلب هذا الاستدعاء بيانات اعتماد خدمة صالحة في ترويسة \u2066X-Service-Credential\u2069.",
      hi: "इस कॉल के लिए X-Service-Credential हेडर में एक मान्य सेवा क्रेडेंशियल आवश्यक है।",
    },
  },
  "internal.permission_denied": {
    status: 403,
    grpc: Code.PermissionDenied,
    oauth: "unauthorized_client",
    messages: {
      en: "The caller's role is not allowed to make this call.",
      ar: "دور المتصل غير مسموح له بإجراء هذا الاستدعاء.",
      hi: "कॉल करने वाले की भूमिका को यह कॉल करने की अनुमति नहीं है।",
    },
  },

  // ---------------------------------------------------------------- server: generic, say nothing of internals
  "server.internal": {
    status: 500,
    grpc: Code.Internal,
    oauth: "server_error",
    classified: false,
    messages: {
      en: "An unexpected error occurred. Please try again later.",
      ar: "حدث خطأ غير متوقع. يرجى المحاولة مرة أخرى لاحقًا.",
      hi: "एक अनपेक्षित त्रुटि हुई। कृपया बाद में फिर से प्रयास करें।",
    },
  },
  "server.unimplemented": {
    status: 501,
    grpc: Code.Unimplemented,
    oauth: "server_error",
    messages: {
      en: "This operation is not available yet.",
      ar: "هذه العملية غير متاحة بعد.",
      hi: "यह कार्रवाई अभी उपलब्ध नहीं है।",
    },
  },
  "server.unavailable": {
    status: 503,
    grpc: Code.Unavailable,
    oauth: "temporarily_unavailable",
    messages: {
      en: "The service is temporarily unavailable. Please try again shortly.",
      ar: "الخدمة غير متاحة مؤقتًا. يرجى المحاولة مرة أخرى بعد قليل.",
      hi: "सेवा अस्थायी रूप से उपलब्ध नहीं है। कृपया थोड़ी देर बाद फिर से प्रयास करें।",
    },
  },
  "server.database_unavailable": {
    status: 503,
    grpc: Code.Unavailable,
    oauth: "temporarily_unavailable",
    params: { retryAfter: "number" },
    headers: { "Retry-After": "{retryAfter}" },
    messages: {
      en: "The service is temporarily unavailable. Try again in {retryAfter} seconds.",
      ar: "الخدمة غير متاحة مؤقتًا. حاول مرة أخرى بعد {retryAfter} ثانية.",
      hi: "सेवा अस्थायी रूप से उपलब्ध नहीं है। {retryAfter} सेकंड बाद फिर से प्रयास करें।",
    },
  },
  "server.timeout": {
    status: 504,
    grpc: Code.DeadlineExceeded,
    oauth: "server_error",
    messages: {
      en: "The request took too long to complete. Please try again.",
      ar: "استغرق الطلب وقتًا أطول من اللازم. يرجى المحاولة مرة أخرى.",
      hi: "अनुरोध पूरा होने में बहुत अधिक समय लगा। कृपया फिर से प्रयास करें।",
    },
  },
} as const satisfies Record<string, CatalogueEntry>;

/** Every error code; a string that is not a key of the catalogue does not type-check. */
export type ErrorCode = keyof typeof catalogue;

/** The params a code's messages use, by name, as a service supplies them. */
export type ParamsOf<C extends ErrorCode> = (typeof catalogue)[C] extends { readonly params: infer P }
  ? { [K in keyof P]: string | number }
  : Record<never, never>;

/** Params as they travel: in process as the service gave them, from the wire always strings. */
export type Params = Readonly<Record<string, string | number>>;

/** All error codes, in catalogue order. */
export const errorCodes = Object.keys(catalogue) as ErrorCode[];

/** The catalogue row of `code`, seen through the common entry type. */
export function entryOf(code: ErrorCode): CatalogueEntry {
  return catalogue[code];
}

/** True when `value` is a code of the catalogue (for codes read from the wire). */
export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(catalogue, value);
}

/** Whether the partner envelope shows `code` for this error: false for validation and unexpected failures. */
export function isClassified(code: ErrorCode): boolean {
  return entryOf(code).classified !== false;
}

/** The OAuth `error` of `code` on /v1/oauth/*: the catalogue's, or `invalid_request` when it names none. */
export function oauthErrorOf(code: ErrorCode): OAuthError {
  return entryOf(code).oauth ?? "invalid_request";
}

/**
 * The HTTP status of `code` in the OAuth body. RFC 6749 §5.2 and the spec: `invalid_client` is 401 and every
 * other client error 400, except where HTTP itself needs the status (the front's `request.*` codes: 404, 405,
 * 413, 415) and for 429 and 5xx, which keep theirs so that clients back off and retry correctly.
 */
export function oauthStatusOf(code: ErrorCode): number {
  const { status } = entryOf(code);
  if (oauthErrorOf(code) === "invalid_client") return 401;
  if (code.startsWith("request.") || status === 429 || status >= 500) return status;
  return 400;
}

/**
 * The catalogue code for an error that arrived with a bare gRPC code and no ErrorInfo (connect's own
 * Unimplemented for an unknown method, a deadline, an unreachable peer). Only codes whose meaning is clear
 * without detail get a code of their own; everything else is an unexpected failure.
 */
export function codeForGrpcStatus(grpc: Code): ErrorCode {
  switch (grpc) {
    case Code.Unimplemented:
      return "server.unimplemented";
    case Code.Unavailable:
      return "server.unavailable";
    case Code.DeadlineExceeded:
      return "server.timeout";
    case Code.InvalidArgument: // e.g. a body connect could not decode
      return "request.malformed_body";
    default:
      return "server.internal";
  }
}
