"""The command words of every language: each command's aliases, by language.

English names are the commands' own (`Command.name`, `Command.aliases`); this table adds
the words players of the other languages write, so `сдаюсь`, `abbandono` and `기권` all
resign. `help` lists them in the reader's language. Words are compared folded (`fold`):
case, accents and ё/е do not matter, so `Сдаюсь`, `ACCETTO` and `accettò` are found too.

No word of one command may be a word of another in any language (`base.register`
checks), nor anything a game's notation reads as a move: a first word that is a move is
played, never taken for a command.
"""

from __future__ import annotations

import re
import unicodedata

#: command name -> language code -> its words in that language (the first is the main one)
WORDS: dict[str, dict[str, tuple[str, ...]]] = {
    "help": {
        "it": ("aiuto", "guida"),
        "ru": ("помощь", "справка", "помогите", "помоги"),
        "uk": ("допомога", "довідка", "допоможіть", "допоможи"),
        "ko": ("도움말", "도움", "도와줘"),
        "zh": ("帮助", "幫助", "说明", "求助"),
    },
    "rules": {
        "it": ("regole", "regolamento"),
        "ru": ("правила",),
        "uk": ("правила",),
        "ko": ("규칙", "룰"),
        "zh": ("规则", "規則"),
    },
    "games": {
        "it": ("partite",),
        "ru": ("партии", "игры"),
        "uk": ("партії", "ігри"),
        "ko": ("대국", "대국목록", "게임"),
        "zh": ("对局", "我的对局", "棋局"),
    },
    "challenge": {
        "it": ("sfida", "sfido"),
        "ru": ("вызов", "вызвать", "вызываю"),
        "uk": ("виклик", "викликати", "викликаю"),
        "ko": ("도전",),
        "zh": ("挑战", "挑戰"),
    },
    "accept": {
        "it": ("accetto", "accetta", "accettare"),
        "ru": ("принимаю", "принять", "принято"),
        "uk": ("приймаю", "прийняти", "прийнято"),
        "ko": ("수락",),
        "zh": ("接受", "应战"),
    },
    "decline": {
        "it": ("rifiuto", "rifiuta", "rifiutare"),
        "ru": ("отклоняю", "отклонить", "отказываюсь"),
        "uk": ("відхиляю", "відхилити", "відмовляюсь"),
        "ko": ("거절",),
        "zh": ("拒绝", "拒絕"),
    },
    "withdraw": {
        "it": ("ritiro", "ritira"),
        "ru": ("отозвать", "отзываю"),
        "uk": ("відкликати", "відкликаю"),
        "ko": ("철회",),
        "zh": ("撤回",),
    },
    "confirm": {
        "it": ("confermo", "conferma"),
        "ru": ("подтверждаю", "подтвердить"),
        "uk": ("підтверджую", "підтвердити"),
        "ko": ("확인",),
        "zh": ("确认", "確認"),
    },
    "open": {
        "it": ("aperte",),
        "ru": ("открытые",),
        "uk": ("відкриті",),
        "ko": ("공개",),
        "zh": ("公开",),
    },
    "public": {
        "it": ("pubblico", "pubblica"),
        "ru": ("публично", "публичность"),
        "uk": ("публічно", "публічність"),
        "ko": ("웹공개", "공개설정"),
        "zh": ("网页公开", "公开设置"),
    },
    "board": {
        "it": ("scacchiera", "tavoliere"),
        "ru": ("доска", "позиция"),
        "uk": ("дошка", "позиція"),
        "ko": ("판", "바둑판"),
        "zh": ("棋盘", "棋盤"),
    },
    "history": {
        "it": ("storia", "mosse"),
        "ru": ("история", "ходы"),
        "uk": ("історія", "ходи"),
        "ko": ("기보",),
        "zh": ("棋谱", "历史"),
    },
    "move": {
        "it": ("mossa", "muovo"),
        "ru": ("ход", "хожу"),
        "uk": ("хід", "ходжу"),
        "ko": ("착수",),
        "zh": ("走棋", "落子"),
    },
    "resign": {
        "it": ("abbandono", "abbandona", "arrendo", "resa"),
        "ru": ("сдаюсь", "сдаться", "сдача"),
        "uk": ("здаюся", "здаюсь", "здатися"),
        "ko": ("기권", "항복"),
        "zh": ("认输", "認輸", "投降"),
    },
    "draw": {
        "it": ("patta", "pareggio"),
        "ru": ("ничья", "ничью"),
        "uk": ("нічия", "нічию"),
        "ko": ("무승부",),
        "zh": ("和棋", "求和", "和局"),
    },
    "pass": {
        "it": ("passo",),
        "ru": ("пас", "пропуск"),
        "uk": ("пас", "пропускаю"),
        "ko": ("패스", "통과"),
        "zh": ("停一手", "虚着", "过"),
    },
    "watch": {
        "it": ("osserva", "seguo"),
        "ru": ("следить", "наблюдать"),
        "uk": ("стежити", "спостерігати"),
        "ko": ("관전",),
        "zh": ("观战", "觀戰"),
    },
    "ratings": {
        "it": ("classifica",),
        "ru": ("рейтинг",),
        "uk": ("рейтинг",),
        "ko": ("랭킹", "레이팅"),
        "zh": ("排名", "等级分"),
    },
    "stats": {
        "it": ("statistiche",),
        "ru": ("статистика",),
        "uk": ("статистика",),
        "ko": ("통계",),
        "zh": ("统计", "統計"),
    },
    "language": {
        "it": ("lingua",),
        "ru": ("язык",),
        "uk": ("мова",),
        "ko": ("언어",),
        "zh": ("语言", "語言"),
    },
    "vacation": {
        "it": ("vacanza", "ferie"),
        "ru": ("отпуск", "каникулы"),
        "uk": ("відпустка", "канікули"),
        "ko": ("휴가",),
        "zh": ("休假", "度假"),
    },
    "address": {
        "it": ("indirizzo",),
        "ru": ("адрес",),
        "uk": ("адреса",),
        "ko": ("주소",),
        "zh": ("地址",),
    },
    "back": {
        "it": ("ritorno", "rientro", "tornato"),
        "ru": ("вернулся", "вернулась", "возвращение"),
        "uk": ("повернувся", "повернулася", "повернення"),
        "ko": ("복귀",),
        "zh": ("回来", "归来"),
    },
    "say": {
        "it": ("messaggio", "dico"),
        "ru": ("сказать", "сообщение", "говорю"),
        "uk": ("сказати", "повідомлення", "кажу"),
        "ko": ("말", "메시지"),
        "zh": ("留言", "说"),
    },
    "stop": {
        "it": ("basta", "disiscrivimi"),
        "ru": ("стоп", "отписаться"),
        "uk": ("стоп", "відписатися"),
        "ko": ("중지", "수신거부"),
        "zh": ("停止", "退订"),
    },
    "takeback": {
        "it": ("annulla", "ripensamento"),
        "ru": ("переходить", "отменить"),
        "uk": ("скасувати", "переграти"),
        "ko": ("무르기",),
        "zh": ("悔棋",),
    },
    "if": {
        "it": ("se",),
        "ru": ("если",),
        "uk": ("якщо",),
        "ko": ("만약",),
        "zh": ("如果",),
    },
    "notify": {
        "it": ("avvisi", "notifiche"),
        "ru": ("уведомления",),
        "uk": ("сповіщення",),
        "ko": ("알림",),
        "zh": ("通知",),
    },
    "tournaments": {
        "it": ("tornei",),
        "ru": ("турниры",),
        "uk": ("турніри",),
        "ko": ("대회목록",),
        "zh": ("赛事", "比赛列表"),
    },
    "tournament": {
        "it": ("torneo",),
        "ru": ("турнир",),
        "uk": ("турнір",),
        "ko": ("대회",),
        "zh": ("比赛", "锦标赛"),
    },
    "join": {
        "it": ("iscrivimi", "partecipo"),
        "ru": ("участвую", "записаться"),
        "uk": ("записатися", "долучаюся"),
        "ko": ("참가",),
        "zh": ("报名", "参加"),
    },
    "leave": {
        "it": ("cancellami",),
        "ru": ("выйти", "выбываю"),
        "uk": ("вийти", "вибуваю"),
        "ko": ("탈퇴",),
        "zh": ("退出",),
    },
    "ladder": {
        "it": ("scala",),
        "ru": ("лестница",),
        "uk": ("драбина",),
        "ko": ("사다리",),
        "zh": ("天梯",),
    },
    "next": {
        "it": ("prossima", "prossimo"),
        "ru": ("следующая", "дальше"),
        "uk": ("наступна", "далі"),
        "ko": ("다음",),
        "zh": ("下一局", "下一个"),
    },
}

#: game name (the engine's) -> language code -> its names in that language (the first is the main one)
GAMES: dict[str, dict[str, tuple[str, ...]]] = {
    "ataxx": {
        "ru": ("атакс", "атаксс"),
        "uk": ("атакс",),
        "ko": ("아택스", "아탁스"),
        "zh": ("同化棋",),
    },
    "infection": {
        "it": ("infezione",),
        "ru": ("инфекция",),
        "uk": ("інфекція",),
        "ko": ("감염",),
        "zh": ("感染", "感染棋"),  # the title mails show is 感染棋
    },
    "assimilation": {
        "it": ("assimilazione",),
        "ru": ("ассимиляция",),
        "uk": ("асиміляція",),
        "ko": ("동화",),
        "zh": ("同化",),
    },
    "capturego": {
        "it": ("go-cattura",),
        "ru": ("го-захват", "атари-го"),
        "uk": ("го-захоплення", "атарі-го"),
        "ko": ("따먹기바둑", "아타리고"),
        "zh": ("吃子棋", "吃子围棋"),
    },
    "myriades": {
        "it": ("miriadi",),
        "ru": ("мириады",),
        "uk": ("міріади",),
        "ko": ("미리아드",),
    },
    "infinito": {
        "ru": ("инфинито",),
        "uk": ("інфініто",),
        "ko": ("인피니토",),
        "zh": ("无限", "無限"),
    },
}


#: language code -> the words its players write for the server's bot, as the opponent of a
#: challenge (`challenge ataxx bot`: "bot" itself works in every language)
BOT: dict[str, tuple[str, ...]] = {
    "it": ("computer",),
    "ru": ("бот", "компьютер"),
    "uk": ("бот", "компʼютер", "комп'ютер"),
    "ko": ("봇", "컴퓨터"),
    "zh": ("机器人", "機器人", "电脑", "電腦"),
}


#: option name (as `challenge` reads it, the engine's own or the service's) -> language code ->
#: the names its players write (`sfida ataxx bot livello=1`, `color=`): the English name works in every
#: language, and the values stay as the mails show them (numbers, `colour=` a side's name)
OPTIONS: dict[str, dict[str, tuple[str, ...]]] = {
    "level": {
        "it": ("livello",),
        "ru": ("уровень",),
        "uk": ("рівень",),
        "ko": ("레벨", "수준", "단계"),
        "zh": ("级别", "級別", "等级", "等級", "难度", "難度"),
    },
    "colour": {
        "en": ("color",),
        "it": ("colore",),
        "ru": ("цвет",),
        "uk": ("колір",),
        "ko": ("색", "색깔"),
        "zh": ("颜色", "顏色"),
    },
    "days": {
        "it": ("giorni",),
        "ru": ("дни", "дней"),
        "uk": ("дні", "днів"),
        "ko": ("일수", "기한"),
        "zh": ("天数", "天數"),
    },
    "clock": {
        "it": ("orologio",),
        "ru": ("часы",),
        "uk": ("годинник",),
        "ko": ("시계",),
        "zh": ("棋钟", "棋鐘", "时钟", "時鐘"),
    },
    "variant": {
        "it": ("variante",),
        "ru": ("вариант",),
        "uk": ("варіант",),
        "ko": ("변형",),
        "zh": ("变体", "變體"),
    },
    "size": {
        "it": ("dimensione", "misura"),
        "ru": ("размер",),
        "uk": ("розмір",),
        "ko": ("크기",),
        "zh": ("大小", "尺寸"),
    },
    "target": {
        "it": ("obiettivo",),
        "ru": ("цель",),
        "uk": ("ціль", "мета"),
        "ko": ("목표",),
        "zh": ("目标", "目標"),
    },
    "blocks": {
        "it": ("blocchi",),
        "ru": ("блоки",),
        "uk": ("блоки",),
        "ko": ("장애물", "블록"),
        "zh": ("障碍", "障礙"),
    },
    "weekends": {
        "it": ("weekend", "finesettimana"),
        "ru": ("выходные",),
        "uk": ("вихідні",),
        "ko": ("주말",),
        "zh": ("周末", "週末"),
    },
    "takebacks": {
        "it": ("ripensamenti",),
        "ru": ("отмены", "возвраты"),
        "uk": ("скасування", "повернення"),
        "ko": ("무르기",),
        "zh": ("悔棋",),
    },
}


def fold(word: str) -> str:
    """A word as it is compared: lower case, without accents (NFKD, combining marks dropped,
    then composed again, so Hangul stays whole), ё as е, full-width forms as ASCII."""
    decomposed = unicodedata.normalize("NFKD", word.casefold())
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    return unicodedata.normalize("NFC", bare).replace("ё", "е")


def aliases(command: str, language: str) -> tuple[str, ...]:
    """The words of `command` in `language` (none for English: the command's own name)."""
    return WORDS.get(command, {}).get(language, ())


def spellings() -> dict[str, set[str]]:
    """Every folded word of the table -> the commands it names (one, when the table is sound)."""
    found: dict[str, set[str]] = {}
    for command, languages in WORDS.items():
        for words in languages.values():
            for word in words:
                found.setdefault(fold(word), set()).add(command)
    return found


def languages_of(word: str) -> set[str]:
    """The languages (not English) in which `word` is a command word."""
    key = fold(word).rstrip(":")
    return {code for languages in WORDS.values() for code, words in languages.items()
            if any(fold(w) == key for w in words)}


def _game_key(name: str) -> str:
    return re.sub(r"[\s_\-]+", "", fold(name))


_GAME_NAMES = {_game_key(word): game for game, languages in GAMES.items()
               for words in languages.values() for word in words}


def game(name: str) -> str:
    """The engine's name of a game a player named in their language (`инфекция` ->
    `infection`); any other name as it is, for the engine to look up."""
    return _GAME_NAMES.get(_game_key(name), name)


_BOT_WORDS = {fold("bot"), *(fold(word) for words in BOT.values() for word in words)}


def is_bot(word: str) -> bool:
    """Whether a challenge's opponent names the server's bot (`bot`, `бот`, `봇`, `机器人`...)."""
    return fold(word) in _BOT_WORDS


_OPTION_NAMES = {fold(word): option for option, languages in OPTIONS.items()
                 for words in languages.values() for word in words}


def option(name: str) -> str:
    """The option a player named in their language (`livello` -> `level`, `цвет` -> `colour`);
    any other name as it is (folded), for the challenge and the engine to look up."""
    key = fold(name.strip())
    return _OPTION_NAMES.get(key, key)
