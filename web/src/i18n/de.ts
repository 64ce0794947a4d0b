/** Deutsch. */
import type { Catalog } from './en.js';

export const de: Catalog = {
  app: {
    title: 'Clarion',
    language: 'Sprache',
    languageFailed:
      '{{language}} konnte nicht geladen werden. Prüfe die Verbindung und wähle die Sprache erneut.',
    qrFailed: 'Der QR-Code konnte nicht angezeigt werden. Kopiere stattdessen den Link.',
    live: 'Live',
    connecting: 'Verbinde…',
    offline: 'Verbinde neu…',
    offlineBanner:
      'Verbindung verloren. Verbinde neu… Bis dahin ist die Anzeige womöglich nicht aktuell.',
    noWorkspace: 'In keinem Arbeitsbereich',
    noWorkspaceBanner:
      'Du bist in keinem Arbeitsbereich mehr Mitglied, deshalb kommt hier nichts Neues an. Bitte deine Clarion-Administration, dich hinzuzufügen, und versuche es dann erneut.',
    tryAgain: 'Erneut versuchen',
    loading: 'Lädt…',
    signInTitle: 'Anmelden',
    signInBody:
      'Öffne einen einmaligen Anmeldelink: den, den Clarion beim Start ausgegeben hat, oder einen neuen.',
    skipToContent: 'Zum Inhalt springen',
    signedInAs: 'Angemeldet als',
    signOut: 'Abmelden',
    signingOut: 'Wird abgemeldet…',
    signOutFailed: 'Nicht abgemeldet. Versuche es erneut.',
    bidiControl:
      'Ein verborgenes Steuerzeichen der Schreibrichtung ({{code}}), sichtbar gemacht, damit es den Text nicht verfälschen kann',
    quoted: '„{{text}}“',
    listSeparator: ', ',
  },
  failure: {
    storage: 'der Speicher ist gerade nicht verfügbar',
    shutting_down: 'der Server wird gerade beendet',
    not_found: 'es existiert nicht mehr, oder du kannst es nicht mehr sehen',
    network: 'keine Antwort vom Server; prüfe die Verbindung',
    forbidden: 'das darfst du nicht',
    no_workspace: 'du bist in keinem Arbeitsbereich',
    internal: 'auf dem Server ist ein Fehler aufgetreten; versuche es noch einmal',
    quota: 'eine Grenze ist erreicht; versuche es später noch einmal',
    invalid: 'sie war nicht gültig; lade die Seite neu und versuche es noch einmal',
    token_limit: 'du hast schon {{limit}} Tokens, mehr sind nicht erlaubt; widerrufe zuerst eines',
    agents_mine:
      'für dich laufen schon {{limit}} Agenten, mehr sind nicht erlaubt; lösche eine Aufgabe oder Sitzung, die du nicht mehr brauchst, oder versuche es später noch einmal',
    agents_server:
      'auf diesem Server laufen schon {{limit}} Agenten, mehr sind nicht erlaubt; versuche es später noch einmal',
    other: 'der Server meldet „{{error}}“',
  },
  nav: {
    inbox: 'Posteingang',
    backToInbox: 'Zurück zum Posteingang',
  },
  inbox: {
    title: 'Wartet auf dich',
    empty: 'Keine offenen Fragen. Neue erscheinen hier, sobald Agenten fragen.',
    loading: 'Lade, was auf dich wartet…',
    more: 'Es warten mehr Fragen, als dieser Eingang anzeigt. Beantworte einige und lade die Seite dann neu, um die übrigen zu sehen.',
    questionCount: 'Fragen: {{count}}',
    open: 'Antworten',
    detached: 'Agent hat weitergemacht',
  },
  triage: {
    kind: { question: 'Frage', form: 'Formular', permission: 'Erlaubnis', action: 'Aktion' },
    arrived: 'Wartet jetzt: {{kind}}, „{{task}}“',
    arrivedMany: 'Neu wartend: {{count}}',
    agent: 'Agent: {{agent}}',
    owner: 'Agent von {{name}}',
    ownerYou: 'Dein Agent',
    workspace: 'Arbeitsbereich: {{workspace}}',
    keysHint: 'J und K wechseln zwischen Einträgen, Enter öffnet einen.',
    send: 'Senden',
    next: 'Nächster wartender Eintrag: {{task}}',
    nothingElse: 'Sonst wartet nichts auf dich.',
    bulkTitle: 'Ausgewählte Erlaubnisse entscheiden',
    bulkSelect: '„{{title}}“ auswählen, um es mit anderen desselben Werkzeugs zu entscheiden',
    bulkSelectInTask:
      '„{{title}}“ der Aufgabe „{{task}}“ auswählen, um es mit anderen desselben Werkzeugs zu entscheiden',
    bulkSelected: '{{count}} ausgewählt',
    bulkAllow: '{{count}} erlauben',
    bulkReject: '{{count}} ablehnen',
    bulkSending: 'Sende {{done}} von {{count}}…',
    bulkAllDone: 'Alle ausgewählten Erlaubnisse wurden entschieden.',
    bulkSomeFailed: '{{count}} konnten nicht entschieden werden:',
    bulkFailure: {
      answered: 'entschieden',
      already_settled: 'jemand anderes hat zuerst entschieden',
      gone: 'die Anfrage ist nicht mehr bekannt',
      retryable: 'keine Antwort vom Server; versuche es erneut',
      refused: 'der Server hat die Antwort abgelehnt',
      no_option: 'sie bietet diese Option nicht an',
    },
  },
  decisionFilters: {
    title: 'Filter',
    task: 'Aufgabe',
    kind: 'Art',
    person: 'Person',
    since: 'Von',
    until: 'Bis (einschließlich)',
    any: 'Alle',
    clear: 'Zurücksetzen',
    export: 'Als CSV exportieren',
    exporting: 'Exportiere…',
    exportFailed: 'Der Export ist fehlgeschlagen. Versuche es erneut.',
    rangeInverted: 'Der „Bis“-Tag liegt vor dem „Von“-Tag, also passt keine Entscheidung.',
  },
  tasks: {
    title: 'Aufgaben',
    empty: 'Noch keine Aufgaben.',
    loading: 'Lade deine Aufgaben…',
    pending: 'Braucht deine Antwort',
  },
  session: {
    title: 'Sitzung',
    notFound: 'Diese Sitzung ist nicht verfügbar.',
    accessLost:
      'Diese Sitzung ist für dich nicht mehr verfügbar; hier kann nichts mehr beantwortet oder gesendet werden.',
    deleted:
      'Diese Sitzung wurde gelöscht: Verlauf und eingereihte Nachrichten sind weg, offene Fragen und Anfragen wurden geschlossen.',
    taskDeleted:
      'Die Aufgabe dieser Sitzung wurde gelöscht, mit allen ihren Sitzungen. Deren Verläufe und eingereihte Nachrichten sind weg, ihre offenen Fragen und Anfragen wurden geschlossen.',
    empty: 'Noch keine Nachrichten.',
    earlier: 'Frühere Nachrichten anzeigen',
    earlierLoading: 'Frühere Nachrichten werden geladen…',
    earlierFailed: 'Die früheren Nachrichten konnten nicht geladen werden. Versuche es erneut.',
    earlierLoaded: 'Frühere Nachrichten wurden oberhalb geladen.',
    earlierLoadedAll:
      'Frühere Nachrichten wurden oberhalb geladen: Der Verlauf zeigt jetzt seinen Anfang.',
    turnNote: {
      queuedAuthorLeft:
        'Eine Nachricht in der Warteschlange wurde nicht gesendet: Die Person, die sie eingereiht hat, gehört nicht mehr zu diesem Arbeitsbereich.',
      freshStart:
        'Der Agent hat in einem neuen Gespräch neu begonnen: Er kann das frühere nicht laden und erinnert sich daher nicht an das, was vorher gesagt wurde.',
      cancelled: 'Abgebrochen',
      cancelledBy: 'Abgebrochen von {{name}}',
      agent_error: 'Der Zug des Agenten ist fehlgeschlagen: {{reason}}',
      not_taken: 'Der Agent hat diese Nachricht nicht angenommen: {{reason}}',
    },
    turnInterrupted: {
      restart:
        'Clarion wurde beendet, während der Agent an diesem Zug arbeitete; der Zug ist damit zu Ende. Sende die Nachricht noch einmal, wenn sie noch wichtig ist.',
      replica_gone:
        'Der Clarion-Server, auf dem der Agent lief, wurde beendet, während der Agent an diesem Zug arbeitete; der Zug ist damit zu Ende. Sende die Nachricht noch einmal, wenn sie noch wichtig ist.',
    },
    transcript: 'Verlauf',
    author: {
      user: 'Du',
      agent: 'Agent',
      system: 'Clarion',
      someone: 'Jemand',
      unknownYet: '…',
    },
    toolStatus: {
      pending: 'Ausstehend',
      in_progress: 'Läuft',
      completed: 'Erledigt',
      failed: 'Fehlgeschlagen',
      stopped: 'Angehalten',
    },
    failure: {
      title: 'Der Agent wurde beendet',
      restart: 'Agent neu starten',
      restarting: 'Startet neu…',
      restartFailed: 'Der Agent wurde nicht neu gestartet: {{reason}}.',
      again: 'Erneut fehlgeschlagen; der Grund steht oben.',
      ownerDeleted:
        'Die Person, für die dieser Agent handelte, wurde gelöscht; er kann nicht mehr laufen. Seine offenen Fragen sind abgelaufen.',
      ownerRemoved:
        'Die Person, für die dieser Agent handelte, wurde aus diesem Arbeitsbereich entfernt; er wurde beendet. Seine offenen Fragen sind abgelaufen. Er kann neu gestartet werden, sobald sie wieder Mitglied ist.',
      ownerStillRemoved:
        'Der Agent wurde nicht neu gestartet: Die Person, für die er handelt, ist kein Mitglied dieses Arbeitsbereichs; sie muss zuerst wieder hinzugefügt werden.',
    },
    actions: {
      label: 'Aktionen der Sitzung',
      stop: 'Zug anhalten',
      stopping: 'Hält an…',
      stopAsked: 'Der Agent soll anhalten; es wird gewartet, bis sein Zug endet.',
      stopped: 'Angehalten: der Zug des Agenten wurde abgebrochen.',
      notRunning: 'Es lief nichts mehr: der Zug war schon zu Ende.',
      stopFailed: 'Nicht angehalten: {{reason}}. Versuch es noch einmal.',
      deleteSession: 'Sitzung löschen',
      deleteTask: 'Aufgabe löschen',
      confirmSession:
        'Diese Sitzung für alle löschen? Verlauf und eingereihte Nachrichten werden gelöscht, offene Fragen und Anfragen geschlossen. Ein laufender Zug wird vorher angehalten. Das lässt sich nicht rückgängig machen.',
      confirmTask:
        'Diese Aufgabe und jede ihrer Sitzungen für alle löschen? Deren Verläufe und eingereihte Nachrichten werden gelöscht, ihre offenen Fragen und Anfragen geschlossen. Laufende Züge werden vorher angehalten. Das lässt sich nicht rückgängig machen.',
      keep: 'Behalten',
      deleting: 'Wird gelöscht…',
      deleteFailed: 'Nicht gelöscht: {{reason}}.',
      refusedSession:
        'Nicht gelöscht: der Speicher ist gerade nicht verfügbar. Die Sitzung bleibt, mit Verlauf, eingereihten Nachrichten und offenen Fragen; ihr laufender Zug wurde angehalten. Versuch es gleich noch einmal.',
      refusedTask:
        'Nicht gelöscht: der Speicher ist gerade nicht verfügbar. Die Aufgabe und ihre Sitzungen bleiben, mit Verläufen, eingereihten Nachrichten und offenen Fragen; laufende Züge wurden angehalten. Versuch es gleich noch einmal.',
    },
    state: {
      waiting_permission: 'Wartet auf Erlaubnis',
      waiting_action: 'Wartet auf eine Aktion',
      waiting_form: 'Wartet auf ein Formular',
      waiting_answer: 'Wartet auf deine Antwort',
      waiting_detached: 'Wartet (der Agent macht weiter)',
      idle: 'Bereit',
      starting: 'Startet',
      running: 'Läuft',
      waiting_for_input: 'Wartet auf dich',
      completed: 'Abgeschlossen',
      failed: 'Fehlgeschlagen',
      cancelled: 'Abgebrochen',
      loading: 'Lädt…',
      unknown: 'Unbekannt',
    },
  },
  composer: {
    hint: 'Enter sendet · Umschalt+Enter fügt eine Zeile ein',
    label: 'Nachricht',
    placeholder: 'Nachricht an den Agenten…',
    send: 'Nachricht senden',
    sending: 'Wird gesendet…',
    queued: 'In der Warteschlange: läuft, sobald der Agent fertig ist.',
    failed: 'Nicht bestätigt. Dein Text bleibt erhalten; sende erneut.',
    invalid: 'Nicht gesendet: {{problem}}. Ändere den Text und sende dann.',
    tooLong: 'eine Nachricht hat höchstens {{max}} Zeichen',
    blank: 'eine Nachricht darf nicht nur aus Leerraum oder unsichtbaren Zeichen bestehen',
    earlierSent:
      'Deine frühere Nachricht ist angekommen: „{{text}}“. Dieser Text wurde nicht gesendet; er bleibt hier. Sende ihn, wenn du ihn noch meinst.',
    earlierQueued:
      'Deine frühere Nachricht steht in der Warteschlange: „{{text}}“. Dieser Text wurde nicht gesendet; er bleibt hier. Sende ihn, wenn du ihn noch meinst.',
    firstUnsent:
      'Deine erste Anweisung wurde nicht gesendet: Der Agent ist nicht gestartet. Sie bleibt hier; starte den Agenten neu und sende sie dann.',
    refused: 'Diese Sitzung nimmt keine Nachrichten an.',
    ownerDeleted:
      'Diese Sitzung nimmt keine Nachrichten mehr an: Die Person, für die ihr Agent handelte, wurde gelöscht.',
    external:
      'Dieser Agent läuft außerhalb von Clarion (über MCP verbunden) und kann hier keine Nachrichten empfangen. Beantworte seine Fragen oben; der Agent holt die Antworten selbst ab.',
  },
  queue: {
    title: 'Wartende Nachrichten',
    empty: 'Nichts in der Warteschlange.',
    remove: 'Entfernen',
    followUp: 'Nachfassen',
    clear: 'Warteschlange leeren',
    clearLabel: 'Leeren der Warteschlange bestätigen',
    clearConfirm: 'Warteschlange leeren? Was entfernt wird, wird nicht gesendet.',
    clearMessages: 'Wartende Nachrichten, die entfernt werden: {{count}}',
    clearFollowUps:
      'Nachfassnachrichten, die entfernt und nicht für dich gesendet werden (deine Antworten auf ihre Aktionen bleiben): {{count}}',
    clearYes: 'Alle entfernen',
    clearFailed: {
      gone: 'Nicht geleert: Diese Sitzung gibt es nicht mehr.',
      unreachable:
        'Keine Antwort vom Server: Die Warteschlange wurde vielleicht nicht geleert. Unten steht, was der Server zuletzt gezeigt hat; versuche es noch einmal.',
      failed: 'Nicht geleert: Der Server konnte es gerade nicht tun. Versuche es noch einmal.',
    },
    clearMissed: {
      taken:
        '„{{text}}“ wurde nicht entfernt: Es hatte die Warteschlange schon verlassen, bevor das Leeren ankam, vermutlich zum Agenten.',
      kept: '„{{text}}“ wurde nicht entfernt: Der Server hat es in der Warteschlange behalten.',
    },
    moveUp: 'Nach oben',
    moveDown: 'Nach unten',
    moveUpNamed: 'Nach oben: {{text}}',
    moveDownNamed: 'Nach unten: {{text}}',
    moveFailed: {
      raced:
        'Nicht verschoben: Die Warteschlange hat sich inzwischen geändert (eine Nachricht wurde gesendet, hinzugefügt oder entfernt). So sieht sie jetzt aus; verschiebe die Nachricht noch einmal, wenn du das weiterhin willst.',
      gone: 'Nicht verschoben: Diese Sitzung gibt es nicht mehr.',
      unreachable:
        'Keine Antwort vom Server: Die Nachricht wurde vielleicht nicht verschoben. Unten steht, was der Server zuletzt gezeigt hat; versuche es noch einmal.',
      failed: 'Nicht verschoben: Der Server konnte es gerade nicht tun. Versuche es noch einmal.',
    },
  },
  clarification: {
    needed: 'Rückfrage',
    questionCount: 'Fragen: {{count}}',
    stepOf: 'Frage {{current}} von {{total}}',
    goToStep: 'Zu Frage {{step}}',
    answeredOf: '{{answered}} von {{total}} beantwortet',
    submit: 'Antworten senden',
    submitting: 'Antworten werden gesendet…',
    skip: 'Alle Fragen überspringen',
    back: 'Zurück',
    next: 'Weiter',
    collapse: 'Einklappen',
    expand: 'Fragen anzeigen',
    customLabel: 'Eigene Antwort',
    customPlaceholder: 'Oder eine eigene Antwort eingeben…',
    customUpdate: 'Enter drücken, um die Antwort zu ändern…',
    send: 'Antwort übernehmen',
    hint: 'Enter sendet · Umschalt+Enter neue Zeile · 1–{{count}} wählt eine Option',
    overLimit: '{{count}} Zeichen über der Grenze von 2000 Zeichen.',
    remaining: 'Noch {{count}} Zeichen',
    movedOn:
      'Der Agent hat weitergemacht. Deine Antwort wird bei Bedarf als neue Nachricht gesendet.',
    lateNotice:
      'Diese Frage ist nicht mehr aktiv. Deine Antwort wird dem Agenten als neue Nachricht gesendet.',
    sendAsMessage: 'Als neue Nachricht senden',
    discard: 'Verwerfen',
  },
  banner: {
    submitting: 'Deine Antwort wird gesendet…',
    error: 'Deine Antwort wurde nicht bestätigt. Sie bleibt erhalten; versuche es erneut.',
    retry: 'Erneut versuchen',
    detached: 'Der Agent hat weitergemacht; deine Antwort setzt ihn fort.',
    detachedExternal:
      'Der Agent wartet nicht mehr. Deine Antwort bleibt gespeichert, bis der Agent sie abholt (wait_for_answer).',
    expired: 'Diese Frage ist nicht mehr aktiv.',
    unavailable: 'Diese Frage ist für dich nicht mehr verfügbar.',
    close: 'Schließen',
    answered: 'Antwort zugestellt.',
    answeredKept:
      'Antwort gespeichert. Der Agent erhält sie, wenn er sie abholt (wait_for_answer).',
    skipped: 'Fragen übersprungen.',
    winner: 'Jemand anderes hat zuerst geantwortet:',
    winnerSkipped: 'Jemand anderes hat diese Fragen zuerst übersprungen.',
    lateSending: 'Die Frage ist abgelaufen; deine Antwort wird als neue Nachricht gesendet…',
    lateSent: 'Die Frage ist abgelaufen; deine Antwort wurde als neue Nachricht gesendet.',
    lateQueued: 'Die Frage ist abgelaufen; deine Antwort wartet als neue Nachricht.',
    lateFailed:
      'Die Frage ist abgelaufen und die neue Nachricht wurde nicht gesendet. Deine Antwort bleibt erhalten.',
    lateRefused:
      'Die Frage ist abgelaufen und diese Sitzung nimmt keine Nachrichten mehr an. Deine Antwort bleibt erhalten.',
    lateEarlier:
      'Die Frage ist abgelaufen. Eine frühere Fassung deiner Antwort wurde bereits als neue Nachricht gesendet, diese nicht. Deine Antwort bleibt erhalten.',
    lateRetry: 'Als neue Nachricht senden',
    refused: 'Der Server hat diese Antwort abgelehnt: {{reason}}.',
  },
  transcript: {
    answered: 'Beantwortet: {{answer}}',
    noSelection: 'Keine Auswahl',
    skipped: 'Übersprungen',
    expired: 'Abgelaufen (Agent hat weitergemacht)',
    expiredOwnerDeleted: 'Abgelaufen: Die Person, für die dieser Agent handelte, wurde gelöscht',
    expiredOwnerRemoved:
      'Abgelaufen: Die Person, für die dieser Agent handelte, wurde aus diesem Arbeitsbereich entfernt',
    cancelled: 'Abgebrochen',
    superseded: 'Nicht beantwortet (das Gespräch ging weiter)',
    unavailable: 'Für dich nicht mehr verfügbar',
    waiting: 'Wartet auf eine Antwort',
    answerNow: 'Jetzt beantworten',
  },
  notifications: {
    title: 'Benachrichtigungen',
    explain:
      'Clarion meldet sich, wenn ein Agent fragt, einmal pro Frage oder Anfrage, und erinnert einmal, wenn sie noch wartet. Eine Nachricht enthält den Aufgabentitel, nicht die Frage, außer du schaltest das ein.',
    empty: 'Noch keine Kanäle.',
    failed: 'Die Benachrichtigungseinstellungen konnten nicht geladen werden.',
    retry: 'Erneut versuchen',
    kind: { web_push: 'Web-Push', ntfy: 'ntfy', webhook: 'Webhook', slack: 'Slack' },
    state: {
      none: 'Noch nichts gesendet',
      pending: 'Wird gesendet…',
      delivered: 'Zugestellt',
      retrying: 'Neuer Versuch folgt',
      failed: 'Fehlgeschlagen',
    },
    test: 'Test senden',
    /** A channel's buttons name it: a screen reader hears one list of them. */
    testLabel: 'Test an {{name}} senden',
    testSending: 'Test wird gesendet…',
    testDelivered: 'Test zugestellt.',
    testFailed: 'Test fehlgeschlagen: {{error}}',
    testNotSent: 'Der Test konnte nicht gesendet werden ({{error}}).',
    /** Why a notice or a test was not delivered, by its code (`src/wire/delivery-errors.ts`). */
    deliveryError: {
      unreachable: 'der Empfänger war nicht erreichbar',
      timed_out: 'der Empfänger hat nicht rechtzeitig geantwortet',
      shutting_down: 'der Server wurde gerade beendet; beim nächsten Start wird erneut gesendet',
      http_status: 'der Empfänger antwortete mit HTTP {{status}}',
      redirect:
        'der Empfänger antwortete mit einer Weiterleitung (HTTP {{status}}), der Clarion nicht folgt',
      internal_target:
        'die Adresse liegt auf dem Rechner dieses Servers oder in seinem privaten Netz; dorthin senden nur Kanäle von Administratoren',
      host_not_allowed:
        'dieser Server sendet keine Benachrichtigungen an diesen Host (die Hosts legt ein Administrator fest)',
      url_unparsable:
        'die URL des Kanals ist nicht lesbar; entferne den Kanal und füge ihn neu hinzu',
      url_has_credentials:
        'die URL des Kanals enthält einen Benutzernamen oder ein Passwort, die nicht gesendet werden können; entferne den Kanal und füge ihn ohne sie neu hinzu',
      no_subscription:
        'der Kanal hat kein gültiges Push-Abonnement; schalte Benachrichtigungen auf dem Gerät wieder ein',
      subscription_gone:
        'das Push-Abonnement besteht nicht mehr; schalte Benachrichtigungen auf dem Gerät wieder ein',
      push_too_large: 'die Push-Nachricht war zu groß',
      push_unprepared: 'die Push-Nachricht konnte nicht erstellt werden',
      kind_unsupported: 'dieser Server kann diese Art von Benachrichtigung noch nicht senden',
      recheck_failed:
        'Clarion konnte die Benachrichtigung vor dem Senden nicht prüfen; es folgt ein neuer Versuch',
      no_longer_waiting: 'der Eintrag wartet nicht mehr auf dich',
      not_visible: 'du kannst den Eintrag nicht mehr sehen',
      reminders_off: 'du hast Erinnerungen ausgeschaltet, bevor sie gesendet wurde',
      reminder_later: 'du hast eine spätere Erinnerung gewählt; sie wird dann gesendet',
      send_failed: 'das Senden ist unerwartet fehlgeschlagen; das Log des Servers nennt den Grund',
    },
    remove: 'Entfernen',
    removeLabel: '{{name}} entfernen',
    removeConfirm:
      '{{name}} entfernen? Benachrichtigungen kommen dort dann nicht mehr an; das lässt sich nicht rückgängig machen.',
    removeConfirmWebhook:
      '{{name}} entfernen? Benachrichtigungen kommen dort dann nicht mehr an. Das Signaturgeheimnis wurde nur einmal gezeigt: Fügst du den Webhook erneut hinzu, bekommt er ein neues, und du musst den Empfänger neu einrichten.',
    removeYes: 'Kanal entfernen',
    removeFailed: 'Der Kanal wurde nicht entfernt ({{error}}).',
    add: 'Kanal hinzufügen',
    kindLabel: 'Art',
    urlLabel: {
      ntfy: 'Topic-URL',
      webhook: 'Webhook-URL',
      slack: 'Slack-Incoming-Webhook-URL',
    },
    nameLabel: 'Name (optional)',
    addButton: 'Hinzufügen',
    adding: 'Wird hinzugefügt…',
    addFailed: 'Der Kanal wurde nicht hinzugefügt ({{error}}).',
    /** The server's refusal of a well-formed URL (`CHANNEL_REFUSALS`). */
    addRefused: {
      internal_target:
        'nur Kanäle von Administratoren dürfen an den Rechner dieses Servers oder sein privates Netz senden; bitte einen Administrator, den Host zu erlauben',
      host_not_allowed:
        'dieser Server sendet keine Benachrichtigungen an diesen Host; die Hosts legt ein Administrator fest',
      channel_exists:
        'du hast schon einen Kanal dieser Art, der dorthin sendet, und jede Benachrichtigung käme doppelt an',
      channel_limit: 'du hast schon {{max}} Kanäle, mehr hat niemand; entferne zuerst einen',
    },
    urlProblem: {
      too_long: 'die URL hat mehr als {{max}} Zeichen',
      not_http: 'gib eine vollständige http://- oder https://-URL an',
      has_credentials:
        'die URL darf keinen Benutzernamen und kein Passwort enthalten (user:password@), denn diese lassen sich nicht senden',
      no_ntfy_topic:
        'die URL muss auf ein Topic aus 1 bis 64 Buchstaben, Ziffern, - oder _ enden, etwa https://ntfy.sh/mein-clarion-topic',
    },
    secretOnce: 'Das Signaturgeheimnis des Webhooks, nur jetzt sichtbar:',
    preferences: 'Einstellungen',
    reminder: 'Erinnern, wenn nach dieser Zeit noch unbeantwortet',
    reminderOff: 'Nie',
    reminderMinutes: '{{count}} Min.',
    includeQuestion: 'Fragetext in Benachrichtigungen aufnehmen',
    answerLinks: 'Antwort-Schaltflächen in ntfy-Benachrichtigungen',
    answerLinksHint:
      'Wer das ntfy-Topic lesen kann, kann damit in deinem Namen antworten: Schalte sie für ein Topic aus, das andere lesen können.',
    saveFailed: 'Deine Änderung wurde nicht gespeichert ({{error}}).',
  },
  settings: {
    title: 'Einstellungen',
    explain:
      'Auf einem anderen Gerät anmelden, eigene Agenten verbinden und festlegen, wie Clarion dich benachrichtigt, wenn ein Agent dich braucht.',
    keep: 'Behalten',
  },
  people: {
    title: 'Personen',
    explain:
      'Wer sich bei diesem Clarion anmelden kann und wer die Aufgaben welches Arbeitsbereichs sieht.',
    readOnly:
      'Nur eine Administratorin oder ein Administrator kann Personen einladen oder Mitglieder eines Arbeitsbereichs ändern.',
    loadFailed:
      'Konnte nicht geladen werden ({{error}}). Lade die Seite neu, um es noch einmal zu versuchen.',
    you: 'Du',
    admin: 'Administrator',
    invite: {
      title: 'Jemanden aus dem Team einladen',
      explain:
        'Legt eine Person an und erstellt einen einmaligen Link, der sie anmeldet. Gib ihn ihr selbst: Clarion verschickt nichts.',
      nameLabel: 'Name',
      workspaceLabel: 'Zum Arbeitsbereich hinzufügen',
      noWorkspace: 'Noch keinem Arbeitsbereich',
      adminLabel: 'Administrator (darf Personen einladen und löschen)',
      submit: 'Einladen',
      inviting: 'Wird eingeladen…',
      done: '{{name}} wurde angelegt. Gib der Person diesen Link zum Anmelden.',
      notAdded: '{{name}} wurde angelegt, aber nicht zum Arbeitsbereich hinzugefügt: {{reason}}',
    },
    link: {
      label: 'Anmeldelink für {{name}}',
      qrAlt: 'QR-Code des Anmeldelinks für {{name}}',
      expires: 'Funktioniert einmal, bis {{time}}.',
      warning: 'Wer diesen Link öffnet, ist als {{name}} angemeldet. Gib ihn nur dieser Person.',
    },
    users: {
      title: 'Benutzer',
      newLink: 'Neuer Anmeldelink',
      newLinkLabel: 'Neuer Anmeldelink für {{name}}',
      delete: 'Löschen',
      deleteLabel: 'Löschen: {{name}}',
      deleteConfirm:
        '{{name}} löschen? Die Person wird überall abgemeldet und jedes ihrer Tokens hört auf zu funktionieren; noch laufende Sitzungen von Aufgaben, die sie gestartet hat, schlagen fehl, und offene Fragen darin verfallen. Das lässt sich nicht rückgängig machen.',
      deleteYes: '{{name}} löschen',
    },
    workspaces: {
      title: 'Arbeitsbereiche',
      empty: 'Du bist in keinem Arbeitsbereich Mitglied.',
      membersOf: 'Mitglieder von {{workspace}}',
      owner: 'Eigentümer',
      member: 'Mitglied',
      makeOwner: 'Zum Eigentümer machen',
      makeOwnerLabel: 'Zum Eigentümer machen: {{name}} in {{workspace}}',
      makeMember: 'Zum Mitglied machen',
      makeMemberLabel: 'Zum Mitglied machen: {{name}} in {{workspace}}',
      remove: 'Entfernen',
      removeLabel: 'Entfernen: {{name}} aus {{workspace}}',
      removeConfirm:
        '{{name}} aus {{workspace}} entfernen? Die Person sieht dann dessen Aufgaben nicht mehr und erfährt nichts mehr von dessen Fragen. Agenten, die dort für sie arbeiten, werden beendet, und deren offene Fragen laufen ab.',
      removeYes: '{{name}} entfernen',
      addLabel: 'Mitglied zu {{workspace}} hinzufügen',
      choose: 'Person wählen',
      add: 'Hinzufügen',
      everyoneIn: 'Alle Benutzer sind schon Mitglied.',
      notMember: 'Sie sind kein Mitglied dieses Arbeitsbereichs.',
      rename: 'Umbenennen',
      renameLabel: '{{workspace}} umbenennen',
      renameField: 'Neuer Name für {{workspace}}',
      renameSave: 'Namen speichern',
      renameCancel: 'Abbrechen',
    },
    refused: {
      lastOwner:
        'Nicht erledigt: Ein Arbeitsbereich behält mindestens einen Eigentümer. Mach zuerst ein anderes Mitglied zum Eigentümer und versuch es dann noch einmal. ({{error}})',
      forbidden: 'Nicht erledigt: Das darf nur ein Administrator.',
      gone: 'Nicht erledigt: Jemand hat das inzwischen geändert; die Liste zeigt jetzt den aktuellen Stand.',
      quota:
        'Nicht erledigt: Diese Person hat zu viele unbenutzte Anmeldelinks. Versuch es wieder, sobald einer benutzt oder abgelaufen ist.',
      network:
        'Nicht erledigt: Clarion ist nicht erreichbar. Prüf die Verbindung und versuch es noch einmal.',
      invalid: 'Nicht erledigt: {{error}}',
      other: 'Nicht erledigt: {{error}}',
    },
  },
  answerLink: {
    title: 'Aus einer Benachrichtigung antworten',
    yourChoice: 'Deine Antwort:',
    answeringAs:
      'Du antwortest als {{name}}. Wenn du nicht {{name}} bist, ist dieser Link nicht für dich: Bestätige nicht.',
    confirm: 'Bestätigen: {{choice}}',
    sending: 'Wird gesendet…',
    open: 'In Clarion öffnen',
    done: 'Erledigt: Du hast als {{name}} „{{choice}}“ gewählt.',
    alreadyDecidedBy: 'Bereits entschieden: „{{choice}}“ von {{name}} ({{surface}}).',
    alreadyDecided: 'Bereits entschieden: „{{choice}}“.',
    agentLabel: 'So nennt es der Agent:',
    setsRule:
      'Das legt eine Regel „Immer erlauben“ für das Agentenprofil „{{profile}}“ im Arbeitsbereich und Ordner dieser Aufgabe an: Genau dieser Befehl läuft dort ab jetzt ohne Nachfrage: {{command}}. Jeder andere Befehl, Arbeitsbereich oder Ordner fragt weiter. Du kannst sie in den Einstellungen widerrufen.',
    expired: 'Dieser Link ist abgelaufen: Der Agent wartet nicht mehr auf diese Antwort.',
    invalidTitle: 'Dieser Link ist ungültig',
    invalid:
      'Er ist unvollständig, oder du kannst diese Anfrage nicht mehr sehen. Öffne Clarion, um zu sehen, was auf dich wartet.',
    failed:
      'Die Antwort konnte nicht gesendet werden. Prüfe deine Verbindung und versuche es erneut.',
    kind: {
      question: 'Frage',
      consent: 'Berechtigungsanfrage',
      action: 'Aufgabe',
      form: 'Formular',
    },
  },
  devicePush: {
    title: 'Benachrichtigungen auf diesem Gerät',
    explain:
      'Eine Benachrichtigung auf diesem Gerät erhalten, wenn ein Agent dich etwas fragt – auch wenn Clarion nicht geöffnet ist.',
    turnOn: 'Benachrichtigungen auf diesem Gerät einschalten',
    working: 'Wird eingeschaltet…',
    turningOff: 'Wird ausgeschaltet…',
    on: 'Dieses Gerät erhält eine Benachrichtigung, wenn ein Agent dich braucht.',
    turnOff: 'Auf diesem Gerät ausschalten',
    insecure:
      'Benachrichtigungen brauchen HTTPS. Öffne Clarion über eine https://-Adresse (ein TLS-Reverse-Proxy; siehe README), um sie hier einzuschalten.',
    unsupported:
      'Dieser Browser kann keine Push-Benachrichtigungen empfangen. Auf einem iPhone oder iPad füge Clarion zum Home-Bildschirm hinzu und öffne es von dort.',
    blocked:
      'Benachrichtigungen sind für diese Website blockiert. Erlaube sie in den Website-Einstellungen des Browsers und lade die Seite neu.',
    problem: {
      dismissed:
        'Benachrichtigungen wurden nicht erlaubt. Drücke die Schaltfläche erneut, um noch einmal gefragt zu werden.',
      unavailable: 'Dieser Server kann noch keine Push-Benachrichtigungen senden.',
      failed: 'Benachrichtigungen konnten nicht eingeschaltet werden: {{error}}',
      unchecked: 'Es ließ sich nicht prüfen, ob dieses Gerät Benachrichtigungen erhält: {{error}}',
      notOff: 'Benachrichtigungen konnten nicht ausgeschaltet werden: {{error}}',
    },
    fault: {
      not_allowed:
        'der Browser hat es nicht erlaubt; prüfe, ob Benachrichtigungen für diese Website erlaubt sind, und versuche es erneut',
      aborted:
        'der Browser hat seinen Push-Dienst nicht erreicht; prüfe die Verbindung und versuche es erneut',
      invalid_state:
        'der Browser war nicht bereit dafür; lade die Seite neu und versuche es erneut',
      not_supported: 'dieser Browser unterstützt es nicht',
      security:
        'der Browser erlaubt es unter dieser Adresse nicht; öffne Clarion über seine https://-Adresse',
      storage_full: 'der Speicher des Browsers für diese Website ist voll oder abgeschaltet',
      timeout: {
        service_worker:
          'der Service Worker des Browsers ist nicht rechtzeitig gestartet; lade die Seite neu und versuche es erneut',
        push_service:
          'der Push-Dienst des Browsers hat nicht rechtzeitig geantwortet; versuche es erneut',
      },
      other: 'der Browser hat es abgelehnt ({{name}})',
    },
  },
  decisions: {
    title: 'Entscheidungen',
    explain:
      'Jede Antwort, jedes Überspringen, jeder Abbruch, jede Erlaubnis, Aktion und jedes Formular, die ein Mensch entschieden hat, neueste zuerst.',
    empty: 'Noch keine Entscheidungen.',
    failed: 'Die Entscheidungen konnten nicht geladen werden.',
    retry: 'Erneut versuchen',
    more: 'Ältere Entscheidungen zeigen',
    remembered: '(durch ein früheres „Immer erlauben“)',
    ruleSet: '(Regel „Immer erlauben“ angelegt)',
    sessionDeleted: '(Sitzung gelöscht)',
    kind: { question: 'Frage', consent: 'Erlaubnis', action: 'Aktion', form: 'Formular' },
    outcome: {
      answered: 'Beantwortet',
      skipped: 'Übersprungen',
      cancelled: 'Abgebrochen',
      allowed: 'Erlaubt',
      rejected: 'Abgelehnt',
      done: 'Erledigt',
      sent: 'Gesendet',
      declined: 'Abgelehnt',
    },
  },
  decision: {
    by: 'Von {{name}} ({{surface}})',
    surface: {
      web: 'Web-App',
      rest: 'API',
      mcp: 'MCP-Client',
      link: 'Antwort-Link',
    },
    consent: '{{option}}: {{title}}',
    remembered: '{{option}} (gemerktes „Immer erlauben“): {{title}}',
    ruleSet: '{{option}} (Regel „Immer erlauben“ angelegt): {{title}}',
    withAgentLabel: '{{option}} (beim Agenten: „{{label}}“)',
    done: 'Erledigt: {{title}}',
    skip: 'Übersprungen: {{title}}',
    formSent: '{{name}} hat das Formular gesendet: {{title}}',
    formSentYou: 'Du hast das Formular gesendet: {{title}}',
    formDeclined: '{{name}} hat das Formular abgelehnt: {{title}}',
    formDeclinedYou: 'Du hast das Formular abgelehnt: {{title}}',
    someone: 'Jemand',
  },
  lateAnswer: {
    open: 'In einer neuen Nachricht antworten',
    title: 'In einer neuen Nachricht antworten',
    explain:
      'Deine Antwort geht als neue Nachricht an den Agenten. Die ursprüngliche Frage bleibt unverändert.',
    send: 'Als neue Nachricht senden',
    sending: 'Wird gesendet…',
    cancel: 'Abbrechen',
    sent: 'Deine Antwort wurde als neue Nachricht gesendet.',
    queued:
      'Deine Antwort wartet als neue Nachricht; sie startet, wenn der Agent mit seinem Zug fertig ist.',
    failed: 'Die Nachricht wurde nicht bestätigt. Deine Antwort bleibt erhalten; sende sie erneut.',
    refused: 'Diese Sitzung nimmt keine Nachrichten mehr an. Deine Antwort bleibt erhalten.',
    earlier:
      'Eine frühere Fassung dieser Antwort wurde bereits gesendet, diese nicht. Deine Antwort bleibt erhalten: Sende sie erneut, um auch sie zu senden.',
  },
  deliveryUnconfirmed: {
    title: 'Antwort nicht bestätigt',
    note: 'Clarion wurde neu gestartet, bevor der Agent den Zug mit dieser Antwort beendet hat. Der Agent hat sie vielleicht nicht erhalten.',
    answer: 'Deine Antwort',
    resend: 'Antwort erneut als neue Nachricht senden',
    sending: 'Wird gesendet…',
    sent: 'Deine Antwort wurde erneut als neue Nachricht gesendet.',
    queued:
      'Deine Antwort wartet als neue Nachricht; sie startet, wenn der Agent mit seinem Zug fertig ist.',
    failed: 'Die Nachricht wurde nicht bestätigt. Sende sie erneut.',
    refused: 'Diese Sitzung nimmt keine Nachrichten mehr an.',
  },
  userInputNote: {
    ended: 'Unbeantwortet beendet – {{what}} des Agenten „{{title}}“: {{cause}}.',
    unconfirmed:
      'Die Entscheidung ({{what}} des Agenten „{{title}}“) wurde gespeichert, aber {{cause}}, bevor der Agent seinen Zug beendet hat. Der Agent hat sie vielleicht nicht erhalten.',
    refused:
      'Nicht angezeigt – {{what}} des Agenten „{{title}}“: Der Agent wartet bereits auf {{limit}} offene Anfragen, so viele wie erlaubt. Beantworte eine, dann kann er wieder fragen.',
    unshowable:
      'Nicht angezeigt – {{what}} des Agenten „{{title}}“: Clarion kann das nicht darstellen ({{problems}}). Der Agent wurde informiert, niemand wurde gefragt.',
    outsideTurn:
      'Nicht angezeigt – {{what}} des Agenten „{{title}}“: Der Agent arbeitete gerade an keinem Auftrag. Dem Agenten wurde ein Abbruch gemeldet.',
    kind: {
      consent: 'Berechtigungsanfrage',
      action: 'Anfrage',
      form: 'Formular',
    },
    endedCause: {
      restart: 'Der Server wurde neu gestartet',
      replica_gone: 'Der Server, der sie hielt, wurde beendet',
      agent_exited: 'Der Agent wurde beendet',
      stopped: 'Sein Zug wurde angehalten',
    },
    unconfirmedCause: {
      restart: 'der Server wurde neu gestartet',
      replica_gone: 'der Server, auf dem der Agent lief, wurde beendet',
      agent_exited: 'der Agent wurde beendet',
    },
  },
  userInput: {
    consentLabel: 'Erlaubnis',
    actionLabel: 'Aktion',
    panel: 'Anfragen des Agenten',
    recentTitle: 'Gerade erledigt',
    waitingConsent: 'Wartet auf deine Erlaubnis',
    waitingAction: 'Wartet darauf, dass du etwas erledigst',
    tool: 'Werkzeug: {{tool}}',
    toolDetails: 'Was das Werkzeug tun wird',
    diffOf: 'Änderungen an {{path}}',
    newFile: 'Neue Datei {{path}}',
    optionKind: {
      allow_once: 'Einmal erlauben',
      allow_always: 'Immer erlauben',
      reject_once: 'Einmal ablehnen',
      reject_always: 'Immer ablehnen',
    },
    deadline: 'Antwort innerhalb von {{time}} (bis {{clock}})',
    deadlinePassed: 'Die Zeit zum Antworten ist abgelaufen.',
    openLink: 'Link öffnen',
    done: 'Erledigt',
    skip: 'Überspringen',
    submitting: 'Deine Antwort wird gesendet…',
    error: 'Deine Antwort wurde nicht bestätigt. Versuche es noch einmal.',
    retry: 'Erneut versuchen',
    refused: 'Der Server hat diese Antwort abgelehnt: {{reason}}.',
    alreadySettled: 'Das wurde bereits an anderer Stelle beantwortet.',
    agentExited:
      'Der Agent, der gefragt hat, wurde beendet; die Anfrage endete unbeantwortet, entschieden wurde nichts.',
    decidedFirst: {
      another_tab:
        'Du hast das bereits in einem anderen Tab entschieden; diese Wahl wurde nicht übernommen.',
      you_elsewhere:
        'Du hast das bereits anderswo entschieden ({{surface}}); diese Wahl wurde nicht übernommen.',
      someone_else:
        '{{name}} hat zuerst entschieden ({{surface}}); deine Wahl wurde nicht übernommen.',
    },
    gone: 'Diese Anfrage ist nicht mehr verfügbar.',
    outcome: {
      allowed: 'Erlaubt: {{option}}',
      rejected: 'Abgelehnt: {{option}}',
      remembered: 'Ohne Nachfrage erlaubt: Du hast früher „Immer erlauben“ gewählt.',
      rememberedBy: 'Ohne Nachfrage erlaubt: {{name}} hat früher „Immer erlauben“ gewählt.',
      consentTimedOut:
        'Zeit abgelaufen: Niemand hat rechtzeitig geantwortet, daher wurde es dem Agenten nicht erlaubt.',
      actionTimedOut: 'Zeit abgelaufen: Niemand hat rechtzeitig geantwortet.',
      swept: 'Zurückgezogen: Der Agent hat aufgehört zu warten, bevor jemand geantwortet hat.',
      agentExited: 'Unbeantwortet beendet: Der Agent wurde beendet, bevor jemand geantwortet hat.',
      serverStopped:
        'Unbeantwortet beendet: Der Server, auf dem der Agent lief, wurde beendet, bevor jemand geantwortet hat.',
      superseded: 'Durch eine neuere Anfrage ersetzt.',
      closed: 'Wartet nicht mehr.',
      done: 'Erledigt.',
      skipped: 'Übersprungen.',
      followUpPending:
        'Sobald der Agent seinen aktuellen Durchgang beendet hat, wird diese Nachricht für dich gesendet:',
      followUpQueued:
        'In der Warteschlange; diese Nachricht wird für dich gesendet, sobald die Sitzung frei ist:',
      followUpSent: 'Diese Nachricht wurde für dich gesendet:',
      followUpDropped: 'Diese Folgenachricht wurde nicht gesendet:',
    },
    queue: {
      edit: 'Bearbeiten',
      save: 'Speichern',
      cancel: 'Abbrechen',
      editLabel: 'Nachricht in der Warteschlange bearbeiten',
      followUpHint:
        'Wird nach einer Aktion für dich gesendet. Du kannst sie entfernen, aber nicht bearbeiten.',
      removeFailed: 'Nicht entfernt; sie startet vielleicht gerade. Versuche es noch einmal.',
      editLost:
        'Die Nachricht, die du bearbeitet hast, hat die Warteschlange verlassen, bevor deine Änderung gespeichert war; sie wurde gesendet oder jemand hat sie entfernt. Deine Änderung steht unten im Nachrichtenfeld.',
      saveFailed: 'Nicht gespeichert; sie wurde vielleicht schon gestartet.',
      saveInvalid: 'Nicht gespeichert: {{problem}}. Ändere den Text und speichere dann.',
      changedElsewhere:
        'Diese Nachricht wurde in einem anderen Tab oder Fenster geändert, während du sie bearbeitet hast. Sie lautet jetzt:',
      saveRefusedChanged:
        'Nicht gespeichert: Diese Nachricht wurde in einem anderen Tab oder Fenster geändert, während du sie bearbeitet hast. Sie lautet jetzt:',
      takeCurrent: 'Neuen Text übernehmen',
      keepTyped: 'Meinen Text behalten',
    },
  },
  // ---------------------------------------------------------------- signin (issue 14)
  access: {
    signIn: {
      signingIn: 'Anmeldung läuft…',
      switchTitle: 'Angemeldete Person wechseln?',
      switchBody: 'Du bist als {{current}} angemeldet. Stattdessen als {{other}} anmelden?',
      switchNote:
        'Dieser Link meldet {{other}} an. Fahre nur fort, wenn du hier als {{other}} handeln willst: was du danach beantwortest, gilt als deren Entscheidung.',
      continue: 'Fortfahren',
      stay: 'Als {{current}} angemeldet bleiben',
      unreachable:
        'Keine Antwort vom Server; der Link wurde nicht verwendet. Versuch es noch einmal.',
      refused: 'Der Server hat die Anmeldung abgelehnt: {{error}}',
      retry: 'Erneut versuchen',
    },
    signedOut: {
      linkInvalidTitle: 'Dieser Anmeldelink funktioniert nicht mehr',
      endedTitle: 'Du bist abgemeldet',
      endedBody:
        'Deine Anmeldung auf dieser Seite ist beendet: Du hast dich hier, in einem anderen Tab oder von einem anderen Gerät aus abgemeldet, oder die Administration hat sie beendet. Öffne einen neuen Anmeldelink, um weiterzumachen.',
      linkInvalidBody:
        'Ein Anmeldelink funktioniert einmal und nur für begrenzte Zeit. Dieser wurde schon benutzt, ist abgelaufen oder war nie gültig.',
      switchedTitle: 'Dieser Browser ist jetzt als {{name}} angemeldet',
      switchedBody:
        'Die Anmeldung wurde in einem anderen Tab gewechselt. Diese Seite hat angehalten, damit nichts, was du hier schreibst, unbemerkt als {{name}} gesendet wird; lade neu, um als {{name}} weiterzumachen.',
      reload: 'Neu laden',
      alreadySignedInTitle: 'Du bist schon als {{name}} angemeldet',
      alreadySignedInBody:
        'Dieser Anmeldelink wurde schon benutzt, ist abgelaufen oder war nie gültig, aber du brauchst keinen: Dieser Browser ist angemeldet.',
      howTitle: 'So bekommst du einen neuen Link',
      fromDevice:
        'Öffne auf einem Gerät, auf dem du angemeldet bist, Einstellungen → „Auf dem Handy anmelden“ und scanne oder kopiere den neuen Link.',
      fromCli:
        'Führe auf dem Rechner, auf dem Clarion läuft, Folgendes aus, mit deinem Namen in Clarion als NAME (die erste Administration kann --user NAME weglassen):',
      fromAdmin: 'Oder bitte deine Clarion-Administration um einen neuen Link.',
      continue: 'Weiter zum Posteingang',
    },
    phone: {
      title: 'Auf dem Handy anmelden',
      explain:
        'Erstellt einen einmaligen Link, der dieses Konto auf einem anderen Gerät anmeldet. Scanne den Code mit der Handykamera oder kopiere den Link.',
      mint: 'Anmeldelink anzeigen',
      mintAgain: 'Neuen Link erstellen',
      minting: 'Link wird erstellt…',
      qrAlt: 'QR-Code des Anmeldelinks',
      expires: 'Funktioniert einmal, bis {{time}}.',
      warning: 'Wer diesen Link öffnet, ist als du angemeldet. Gib ihn nicht weiter.',
      failed: 'Es wurde kein Link erstellt ({{error}}). Versuche es noch einmal.',
    },
    others: {
      title: 'Andere Geräte abmelden',
      explain:
        'Beendet deine Anmeldung in jedem anderen Browser und auf jedem anderen Handy, etwa einem verlorenen oder einem, auf dem du angemeldet geblieben bist. Dieser Browser bleibt angemeldet.',
      start: 'Andere Geräte abmelden',
      prompt:
        'Jetzt alle anderen Geräte abmelden? Jedes braucht danach einen neuen Anmeldelink, um Clarion zu nutzen.',
      confirm: 'Abmelden',
      keep: 'Abbrechen',
      ended: 'Abgemeldete andere Geräte: {{count}}.',
      none: 'Kein anderes Gerät war angemeldet.',
      failed: 'Kein Gerät wurde abgemeldet ({{error}}). Versuche es noch einmal.',
    },
    tokens: {
      title: 'API-Tokens',
      explain:
        'Mit Tokens handeln Skripte und Agenten über die REST-API und MCP in deinem Namen. Widerrufe Tokens, die du nicht mehr brauchst.',
      empty: 'Du hast keine API-Tokens.',
      nameLabel: 'Name des Tokens',
      namePlaceholder: 'z. B. Laptop-Skript',
      create: 'Token erstellen',
      creating: 'Wird erstellt…',
      created: 'Kopiere dieses Geheimnis jetzt: Es wird nur einmal angezeigt.',
      createdAt: 'Erstellt {{time}}',
      lastUsed: 'Zuletzt benutzt {{time}}',
      neverUsed: 'Nie benutzt',
      agentKind: 'Agent: fragt, entscheidet nie',
      revoke: 'Widerrufen',
      revokeLabel: 'Token {{name}} widerrufen',
      loadFailed: 'Die Tokens konnten nicht geladen werden ({{error}}).',
      createFailed: 'Es wurde kein Token erstellt: {{error}}',
      revokeFailed: 'Der Token wurde nicht widerrufen ({{error}}).',
      revokeConfirm:
        '{{name}} widerrufen? Alles, was ihn nutzt, etwa ein damit verbundenes Claude Code, verliert sofort den Zugang und braucht einen neuen Token.',
      revokeYes: 'Token widerrufen',
    },
    claudeCode: {
      title: 'Claude Code verbinden',
      explain:
        'Erstellt einen Agenten-Token namens „Claude Code“ mit der Uhrzeit seiner Erstellung und zeigt den Befehl, der Clarion als MCP-Server hinzufügt. Führe ihn in einem Terminal aus. Claude Code kann dich dann fragen und auf deine Antwort warten, aber nie für dich antworten.',
      tokenName: 'Claude Code ({{time}})',
      mint: 'Befehl erstellen',
      minting: 'Token wird erstellt…',
      once: 'Der Befehl enthält einen neuen Token, der nur jetzt angezeigt wird. Jeder Klick erstellt einen weiteren: Widerrufe die, die du nicht mehr brauchst, unter API-Tokens.',
      failed: 'Es wurde kein Token erstellt ({{error}}).',
    },
    copy: 'Kopieren',
    copied: 'Kopiert',
    copyFailed: 'Markiere den Text und kopiere ihn.',
  },
  // ------------------------------------------------ first run, new task, "Always allow" (issue 15)
  firstRun: {
    title: 'Loslegen',
    explain:
      'Probiere Clarion mit dem mitgelieferten Demo-Agenten aus, verbinde deinen eigenen Agenten oder starte eine Aufgabe.',
    demo: 'Demo ausprobieren',
    demoStarting: 'Demo startet…',
    demoTaskTitle: 'Demo: Ein Agent stellt dir eine Frage',
    demoFailed: 'Die Demo konnte nicht starten ({{error}}).',
    connect: 'Agenten verbinden',
    newTask: 'Neue Aufgabe',
  },
  newTask: {
    headerLink: 'Neue Aufgabe',
    title: 'Neue Aufgabe',
    explain: 'Ein Agent beginnt sofort mit deiner ersten Anweisung.',
    titleLabel: 'Titel',
    profileLabel: 'Agentenprofil',
    workspaceLabel: 'Arbeitsbereich',
    cwdLabel: 'Arbeitsverzeichnis (optional)',
    cwdPlaceholder: '/home/du/projekt',
    promptLabel: 'Erste Anweisung',
    promptPlaceholder: 'Was soll der Agent tun? (Strg+Enter startet die Aufgabe)',
    create: 'Aufgabe starten',
    creating: 'Startet…',
    cancel: 'Abbrechen',
    failed: 'Die Aufgabe wurde nicht gestartet: {{error}}',
    profilesFailed: 'Die Agentenprofile konnten nicht geladen werden ({{error}}).',
    workspacesFailed: 'Deine Arbeitsbereiche konnten nicht geladen werden ({{error}}).',
    titleRequired: 'Gib der Aufgabe einen Titel.',
    titleTooLong: 'Ein Titel hat höchstens {{max}} Zeichen.',
    promptTooLong: 'Eine erste Anweisung hat höchstens {{max}} Zeichen.',
    problem: {
      cwd_not_absolute: 'Gib den vollständigen Pfad des Verzeichnisses an, etwa /home/du/projekt.',
      cwd_not_directory: 'Unter diesem Pfad gibt es auf dem Server kein Verzeichnis.',
      cwd_not_readable_in_time:
        'Der Server konnte dieses Verzeichnis nicht rechtzeitig lesen; prüfe es und versuche es erneut.',
      unknown_profile:
        'Dieses Agentenprofil gibt es auf dem Server nicht mehr; lade die Seite neu und wähle ein anderes.',
    },
  },
  consentRules: {
    title: 'Immer erlauben',
    explain:
      'Befehle, für die du „Immer erlauben“ gewählt hast, laufen in deinen eigenen Aufgaben im selben Arbeitsbereich und Ordner ohne Rückfrage, genau so, wie du sie gesehen hast; jeder andere Befehl, Ordner oder Arbeitsbereich und Aufgaben anderer fragen weiter. Widerrufe eine Regel, und der Agent fragt wieder.',
    empty: 'Keine Regeln: Jede Berechtigungsanfrage fragt nach.',
    rule: '{{tool}}: {{command}} · {{profile}}',
    ruleWithoutCommand:
      '{{tool}} · {{profile}}: angelegt, bevor Regeln ihren Befehl nannten; sie erlaubt jetzt nichts. Widerrufe sie.',
    scope: 'In {{workspace}} · Ordner {{cwd}}',
    workspaceGone: 'einem nicht mehr vorhandenen Arbeitsbereich',
    ruleWithoutScope:
      '{{tool}}: {{command}} · {{profile}}: angelegt, bevor Regeln an einen Arbeitsbereich und Ordner gebunden waren; sie erlaubt jetzt nichts. Widerrufe sie.',
    setBy: 'Festgelegt von {{name}}',
    revoke: 'Widerrufen',
    revokeLabel: '„Immer erlauben“ widerrufen: {{rule}}',
    loadFailed: 'Die Regeln konnten nicht geladen werden ({{error}}).',
    revokeFailed: 'Die Regel wurde nicht widerrufen ({{error}}).',
    revokedWithoutCommand: '{{tool}} · {{profile}}',
    revokedTitle: 'Widerrufen',
    revokedBy: 'Widerrufen von {{name}} ({{surface}})',
  },
  decide: {
    undo: {
      answering: 'Deine Antwort wird gleich gesendet…',
      skipping: 'Die Fragen werden gleich übersprungen…',
      rejecting: 'Wird gleich abgelehnt…',
      skippingAction: 'Die Aktion wird gleich übersprungen…',
      undo: 'Rückgängig',
      sendNow: 'Jetzt senden',
    },
    skipConfirm: 'Alle Fragen überspringen? Du kannst dem Agenten den Grund nennen.',
    skipReasonPlaceholder: 'Grund, in deinen Worten (optional)',
    skipConfirmYes: 'Alle Fragen überspringen',
    skipCancel: 'Weiter beantworten',
    rejectConfirm: 'Diese Anfrage ablehnen?',
    skipActionConfirm: 'Diese Aktion überspringen? Du kannst dem Agenten den Grund nennen.',
    rejectConfirmYes: 'Ablehnen',
    skipActionYes: 'Aktion überspringen',
    cancel: 'Abbrechen',
    errorWaiting:
      'Offline: Deine Antwort bleibt erhalten und wird gesendet, sobald die Verbindung zurück ist.',
    answeredBy: {
      this_tab: 'Antwort zugestellt.',
      another_tab: 'In einem anderen Tab beantwortet:',
      you_elsewhere: 'Du hast das schon anderswo beantwortet:',
      someone_else: 'Jemand anderes hat zuerst geantwortet:',
    },
    skippedBy: {
      this_tab: 'Fragen übersprungen.',
      another_tab: 'In einem anderen Tab übersprungen.',
      you_elsewhere: 'Du hast diese Fragen schon anderswo übersprungen.',
      someone_else: 'Jemand anderes hat diese Fragen zuerst übersprungen.',
    },
    settled: {
      another_tab: 'In einem anderen Tab beantwortet.',
      you_elsewhere: 'Du hast diese Frage anderswo beantwortet.',
      someone_else: 'Jemand anderes hat diese Frage beantwortet.',
      cancelled_another_tab: 'Du hast diese Frage in einem anderen Tab abgebrochen.',
      cancelled_you_elsewhere: 'Du hast diese Frage anderswo abgebrochen.',
      cancelled_someone_else: 'Jemand anderes hat diese Frage abgebrochen.',
      expired: 'Diese Frage ist nicht mehr aktiv.',
    },
    draftKept:
      'Dein Entwurf bleibt erhalten: Sende ihn dem Agenten als neue Nachricht oder verwirf ihn.',
    draftSending: 'Dein Entwurf wird als neue Nachricht gesendet…',
    draftSent: 'Dein Entwurf wurde als neue Nachricht gesendet.',
    draftQueued: 'Dein Entwurf steht als neue Nachricht in der Warteschlange.',
    draftFailed: 'Die neue Nachricht wurde nicht gesendet. Dein Entwurf bleibt erhalten.',
    draftEarlier:
      'Eine frühere Fassung deines Entwurfs wurde bereits als neue Nachricht gesendet, diese nicht. Dein Entwurf bleibt erhalten.',
    draftRefused: 'Diese Sitzung nimmt keine Nachrichten mehr an. Dein Entwurf bleibt erhalten.',
    toolStatus: {
      waiting_detached: 'Wartet (der Agent macht weiter)',
      answered_later: 'Beantwortet (der Agent hat weitergemacht)',
      skipped: 'Übersprungen',
      cancelled: 'Abgebrochen',
    },
  },
  questionCancel: {
    open: 'Frage abbrechen',
    confirm:
      'Diese Frage abbrechen? Der Agent wartet nicht mehr und erfährt, dass die Frage abgebrochen wurde; er bekommt keine Antwort.',
    yes: 'Frage abbrechen',
    keep: 'Frage behalten',
    cancelling: 'Die Frage wird abgebrochen …',
    cancelled: 'Frage abgebrochen. Der Agent hat erfahren, dass sie abgebrochen wurde.',
    not_waiting:
      'Nicht abgebrochen: Auf diese Frage wartet kein Agent mehr, es gibt also nichts abzubrechen. Du kannst sie noch beantworten oder überspringen.',
    closed: 'Nicht abgebrochen: Laut Server lässt sich diese Frage nicht mehr abbrechen.',
    failed:
      'Die Frage wurde nicht abgebrochen: Der Server hat es nicht bestätigt. Versuch es noch einmal.',
    refused: 'Der Server hat das Abbrechen dieser Frage abgelehnt: {{reason}}.',
  },
  formCard: {
    label: 'Formular',
    submit: 'Senden',
    decline: 'Ablehnen',
    required: 'Pflichtfeld',
    choose: 'Auswählen…',
    yes: 'Ja',
    no: 'Nein',
    outcome: {
      sent: 'Du hast das Formular gesendet.',
      declined: 'Du hast das Formular abgelehnt.',
      sentBy: '{{name}} hat das Formular gesendet.',
      declinedBy: '{{name}} hat das Formular abgelehnt.',
      timedOut:
        'Niemand hat das Formular rechtzeitig ausgefüllt; der Agent erfuhr, dass es abgebrochen wurde.',
    },
    error: {
      not_object: 'Die Antwort ist kein Formular.',
      unknown_field: 'Dieses Feld gehört nicht zum Formular.',
      required: 'Pflichtfeld.',
      not_text: 'Gib Text ein.',
      invalid_text: 'Entferne die ungültigen Zeichen.',
      too_short: 'Mindestens {{limit}} Zeichen.',
      too_long: 'Höchstens {{limit}} Zeichen.',
      not_email: 'Gib eine E-Mail-Adresse ein.',
      not_uri: 'Gib eine vollständige Adresse ein (etwa https://…).',
      not_date: 'Gib ein Datum ein (JJJJ-MM-TT).',
      not_date_time: 'Gib Datum und Uhrzeit mit Zone ein (2026-01-31T09:00:00Z).',
      not_number: 'Gib eine Zahl ein.',
      not_integer: 'Gib eine ganze Zahl ein.',
      too_small: 'Mindestens {{limit}}.',
      too_large: 'Höchstens {{limit}}.',
      not_boolean: 'Wähle Ja oder Nein.',
      not_option: 'Wähle eine der Optionen.',
      not_options: 'Wähle aus den Optionen.',
      duplicate: 'Eine Option ist doppelt gewählt.',
      too_few: 'Wähle mindestens {{limit}}.',
      too_many: 'Wähle höchstens {{limit}}.',
    },
  },
  rejectReason: {
    prompt: 'Diese Anfrage ablehnen? Du kannst dem Agenten sagen, was er stattdessen tun soll.',
    placeholder: 'Was der Agent stattdessen tun soll (optional)',
    outcome: 'Abgelehnt: {{option}}. Dein Grund: „{{reason}}“',
    transcript: 'Grund: „{{reason}}“',
    bulkPrompt: '{{count}} Anfragen ablehnen? Ein Grund für alle Agenten, oder keiner.',
    bulkYes: '{{count}} ablehnen',
  },
};
