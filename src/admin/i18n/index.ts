// Admin translations of the plugin, merged by the dashboard into its i18next resources.
import en from "./json/en.json"
import ru from "./json/ru.json"

export default {
  en: { translation: en },
  ru: { translation: ru },
}
